#pragma once
// The embedded matrix compiled at build time: the build loads and checks matrix/data and
// matrix/generated, and writes the resulting `Matrix` as a binary image that a start-up reads
// back without TOML parsing, merging or validation (what libsolv's `.solv` files are to repodata).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix::detail {

// The image of `matrix`, tagged with `digest`: the digest of the data files it was made from.
std::string write_image(const Matrix& matrix, std::string_view digest);

// The matrix an image holds; nullopt when `image` is empty, of another format, made from files
// whose digest is not `digest`, or damaged (the caller then reads the data files themselves).
// `left_out`: the generated layer's releases (as drop_generated_releases()), or the releases a
// newer one stands for (as leave_out_stood_for()), left out unread.
// The matrix borrows texts from `image` (util::SharedText::lasting), so `image` must outlive it:
// the one in the binary does.
enum class LeftOut : std::uint8_t { nothing, generated, stood_for };
std::optional<Matrix> read_image(std::string_view image, std::string_view digest,
                                 LeftOut left_out = LeftOut::nothing);

// The image compiled into this binary; empty where the binary carries none (the build's own
// image compiler).
std::string_view embedded_image();

}  // namespace bevenv::matrix::detail
