// bevenv doctor --log: known failures named with their line, cause and fix, on a real
// traceback (F1 from Python's own multiprocessing) and on the exact symptom texts of the field
// failures; the catalogue (matrix/data/failures.toml) and rules' `symptom` fields work without
// code changes.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "bevenv/matrix/loader.hpp"
#include "doctor_log.hpp"
#include "doctor_support.hpp"
#include "thrown_error.hpp"

namespace bevenv::app {
namespace {

const LogMatch* find_id(const std::vector<LogMatch>& matches, const std::string& id) {
  for (const auto& match : matches) {
    if (match.id == id) return &match;
  }
  return nullptr;
}

// 1-based number of the last line of `text` that starts with `prefix`; 0 when none.
std::size_t last_line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::size_t number = 0;
  std::size_t found = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind(prefix, 0) == 0) found = number;
  }
  return found;
}

TEST_CASE("doctor --log: a real dict_keys pickling failure in a spawn context is F1") {
  const auto dir = test::temp_dir("f1");
  const auto script = dir / "spawn_dict_keys.py";
  std::ofstream(script) << "import multiprocessing as mp\n"
                           "def work(config):\n"
                           "    pass\n"
                           "if __name__ == '__main__':\n"
                           "    ctx = mp.get_context('spawn')\n"
                           "    worker = ctx.Process(target=work, args=({'car': 50}.keys(),))\n"
                           "    worker.start()\n"
                           "    worker.join()\n";
  int exit_code = 0;
  const std::string traceback =
      test::run_shell("python3 " + test::shell_quote(script.string()), &exit_code);
  REQUIRE(exit_code != 0);
  REQUIRE_THAT(traceback, Catch::Contains("TypeError: cannot pickle 'dict_keys' object"));
  const std::string noise = "epoch 1 iter 50 loss 3.14\nepoch 1 iter 100 loss 2.71\n";
  std::istringstream log(noise + traceback);
  std::size_t lines = 0;
  const auto matches = scan_log(log, &test::embedded_matrix(), &lines);
  const LogMatch* f1 = find_id(matches, "F1");
  REQUIRE(f1 != nullptr);
  CHECK(f1->line == 2 + last_line_starting(traceback, "TypeError: cannot pickle"));
  CHECK_THAT(f1->cause, Catch::Contains("DetectionConfig"));
  CHECK_THAT(f1->fix, Catch::Contains("list(...)"));
  CHECK(matches.size() == 1);
}

TEST_CASE("doctor --log: the exact symptom texts of F2-F12") {
  struct Case {
    const char* id;
    const char* line;
  };
  const Case cases[] = {
      {"F2", "AttributeError: module 'distutils' has no attribute 'version'"},
      {"F3", "TypeError: FormatCode() got an unexpected keyword argument 'verify'"},
      {"F4", "ModuleNotFoundError: No module named 'torchpack.utils.tqdm'"},
      {"F5",
       "ImportError: cannot import name 'feature_decorator_ext' from partially initialized "
       "module 'mmdet3d.ops.feature_decorator' (most likely due to a circular import)"},
      {"F6",
       "FileNotFoundError: [Errno 2] No such file or directory: "
       "'data/nuscenes//nuscenes_infos_train.pkl'"},
      {"F7",
       "RuntimeError: Expected input[24, 6, 256, 704] to have 1 channels, but got 6 channels "
       "instead"},
      {"F8",
       "RuntimeError: CUDA out of memory. Tried to allocate 168.00 MiB (GPU 0; 23.69 GiB total "
       "capacity)"},
      {"F10", "RuntimeError: CUDA error: no kernel image is available for execution on the device"},
      {"F11",
       "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, "
       "unhandled system error, NCCL version 2.10.3"},
      {"F12",
       "RuntimeError: DataLoader worker (pid 4141) is killed by signal: Bus error. It is "
       "possible that dataloader's workers are out of shared memory."},
  };
  std::string log = "2024-05-01 12:00:00 start\n";
  std::vector<std::size_t> expected_line;
  std::size_t number = 1;
  for (const auto& c : cases) {
    log += "Traceback (most recent call last):\n  File \"tools/train.py\", line 1, in <module>\n";
    number += 2;
    log += std::string(c.line) + "\n";
    expected_line.push_back(++number);
    log += "some unrelated line\n";
    ++number;
  }
  std::istringstream in(log);
  const auto matches = scan_log(in, &test::embedded_matrix());
  CHECK(matches.size() == std::size(cases));
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    INFO(cases[i].id);
    const LogMatch* match = find_id(matches, cases[i].id);
    REQUIRE(match != nullptr);
    CHECK(match->line == expected_line[i]);
    CHECK_FALSE(match->cause.empty());
    CHECK_FALSE(match->fix.empty());
  }
  // F2's text is also the symptom of the F9 rule (torch 2 with BEVFusion): both are named.
  const LogMatch* f2 = find_id(matches, "F2");
  REQUIRE(f2 != nullptr);
  CHECK(std::find(f2->rules.begin(), f2->rules.end(), "torch2-with-bevfusion") != f2->rules.end());
}

TEST_CASE("doctor --log: repeated failures are grouped under the first line") {
  std::istringstream in(
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\nok\n"
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
  const auto matches = scan_log(in, &test::embedded_matrix());
  REQUIRE(matches.size() == 1);
  CHECK(matches[0].line == 1);
  CHECK(matches[0].more_lines == std::vector<std::size_t>{3});
  // Without a matrix there is no catalogue: the patterns live nowhere else.
  std::istringstream again("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  CHECK(scan_log(again, nullptr).empty());
}

TEST_CASE("doctor --log: ANSI colour and wrapped lines do not hide a failure") {
  std::istringstream in(
      "\x1b[1m\x1b[31mRuntimeError\x1b[0m: CUDA error: no kernel image is available for "
      "execution on the device\r\n"
      "epoch 2\n"
      "RuntimeError: DataLoader worker (pid 4141) is killed by signal: Bus \n"
      "error. It is possible that dataloader's workers are out of shared memory.\n");
  const auto matches = scan_log(in, &test::embedded_matrix());
  REQUIRE(matches.size() == 2);
  CHECK(matches[0].id == "F10");
  CHECK(matches[0].line == 1);
  CHECK(matches[0].text.find('\x1b') == std::string::npos);
  CHECK(matches[1].id == "F12");
  CHECK(matches[1].line == 3);  // where the wrapped message starts

  // torch's DataLoader prints a NUL after its bus-error message: it is dropped, not matched.
  std::istringstream nul(
      std::string("ERROR: Unexpected bus error encountered in worker.\n\0", 52) +
      "RuntimeError: DataLoader worker (pid 652) is killed by signal: Bus error.\n");
  const auto bus = scan_log(nul, &test::embedded_matrix());
  REQUIRE(bus.size() == 1);
  CHECK(bus[0].id == "F12");
  CHECK(bus[0].text.find('\0') == std::string::npos);
}

TEST_CASE("doctor --log: the fix fits the environment it is given") {
  const std::string line = "AttributeError: module 'distutils' has no attribute 'version'\n";
  matrix::FixContext old_stack;
  old_stack.python = core::Version::parse("3.8.18").value();
  old_stack.packages.emplace("torch", core::Version::parse("1.10.1").value());
  old_stack.packages_known = true;
  std::istringstream first(line);
  auto matches = scan_log(first, &test::embedded_matrix(), nullptr, old_stack);
  REQUIRE(matches.size() == 1);
  CHECK_THAT(matches[0].fix, Catch::Contains("setuptools<59.6"));

  matrix::FixContext h200;
  h200.python = core::Version::parse("3.12.3").value();
  h200.packages.emplace("torch", core::Version::parse("2.11.0").value());
  h200.packages_known = true;
  std::istringstream second(line);
  matches = scan_log(second, &test::embedded_matrix(), nullptr, h200);
  REQUIRE(matches.size() == 1);
  CHECK(matches[0].id == "F2");
  CHECK_THAT(matches[0].fix, !Catch::Contains("setuptools<59.6"));
}

TEST_CASE("doctor --log: the log's paths name the Python the fix is fitted to") {
  using doctor_detail::python_of_log;
  const auto python = [](std::string_view text) {
    const auto version = python_of_log(text);
    return version ? version->to_string() : std::string("none");
  };
  CHECK(python("  File \"/usr/local/lib/python3.8/dist-packages/torch/__init__.py\", line 4") ==
        "3.8");
  CHECK(python("/opt/conda/envs/bev/lib/python3.10/site-packages/mmcv/__init__.py") == "3.10");
  // The first path wins; a bare command, three digits or no minor name no interpreter.
  CHECK(python("x /usr/lib/python3.12/a\n/envs/b/lib/python3.8/site-packages/c") == "3.12");
  CHECK(python("$ python3.8 tools/train.py") == "none");
  CHECK(python("/usr/bin/python3.10 -m torch.distributed.run") == "none");
  CHECK(python("/python3.123/x /python3./y /python3.1") == "none");
  CHECK(python("") == "none");

  // The same failure, two interpreters: the pin where numpy <1.24 installs, else the code fix.
  const auto dir = test::temp_dir("logpython");
  const std::string error = "AttributeError: module 'numpy' has no attribute 'float'.\n";
  std::ofstream(dir / "py310.log")
      << "  File \"/venv/lib/python3.10/site-packages/numpy/__init__.py\", line 305\n"
      << error;
  std::ofstream(dir / "py312.log")
      << "  File \"/venv/lib/python3.12/site-packages/numpy/__init__.py\", line 324\n"
      << error;
  DoctorLogOptions options;
  options.log = dir / "py310.log";
  CommandOutput out = doctor_log(options);
  REQUIRE(out.json["matches"].size() == 1);
  CHECK(out.json["matches"][0]["id"] == "numpy-aliases");
  CHECK_THAT(out.json["matches"][0]["fix"].get<std::string>(), Catch::Contains("numpy<1.24"));
  CHECK(out.json["python"] == "3.10");
  CHECK_THAT(out.lines.back().text, Catch::Contains("Python 3.10"));
  options.log = dir / "py312.log";
  out = doctor_log(options);
  CHECK_THAT(out.json["matches"][0]["fix"].get<std::string>(),
             Catch::Contains("Python >=3.12") && !Catch::Contains("numpy<1.24"));
  CHECK(out.json["python"] == "3.12");
}

TEST_CASE("doctor --log: matrix rules' symptoms, including a new rule from an overlay") {
  const auto& matrix = test::embedded_matrix();
  const std::string numpy = "AttributeError: module 'numpy' has no attribute 'float'";
  std::vector<std::string> numpy_rules;
  for (const auto& rule : matrix.rules) {
    if (rule.symptom == numpy) numpy_rules.push_back(rule.id);
  }
  REQUIRE_FALSE(numpy_rules.empty());
  std::istringstream in("x\n  File \"mmdet3d/core/bbox.py\", line 9\n" + numpy + "\n");
  auto matches = scan_log(in, &matrix);
  REQUIRE(matches.size() == 1);
  CHECK(matches[0].line == 3);
  CHECK(matches[0].rules == numpy_rules);
  // The catalogue entry speaks for the text; the rules that keep it out of a lock are listed.
  const matrix::Failure* aliases = matrix.find_failure("numpy-aliases");
  REQUIRE(aliases != nullptr);
  CHECK(matches[0].id == "numpy-aliases");
  CHECK(matches[0].fix == aliases->fixes.front().text);

  const matrix::Matrix with_site = test::embedded_with_overlay(
      "overlay/site.toml",
      "[[rule]]\nid = \"site-new-failure\"\nkind = \"conflicts\"\n"
      "when.packages = { torch = \"<1.11\" }\nthen = \"setuptools>=59.6\"\n"
      "message = \"a site-specific failure\"\n"
      "symptom = \"ValueError: the site's own failure ... while loading sweeps\"\n"
      "fix = \"pin the site's fix\"\nsources = [\"https://example.org/site-wiki\"]\n");
  std::istringstream site(
      "ok\nValueError: the site's own failure in worker 3 while loading sweeps\n");
  matches = scan_log(site, &with_site);
  REQUIRE(matches.size() == 1);
  CHECK(matches[0].id == "site-new-failure");
  CHECK(matches[0].line == 2);
  CHECK(matches[0].fix == "pin the site's fix");
}

TEST_CASE("doctor --log: the command's output and exit codes") {
  const auto dir = test::temp_dir("logcmd");
  std::ofstream(dir / "clean.log") << "epoch 1 done\nepoch 2 done\n";
  std::ofstream(dir / "bad.log") << "epoch 1\nTypeError: cannot pickle 'dict_keys' object\n";
  DoctorLogOptions options;
  options.log = dir / "clean.log";
  CommandOutput out = doctor_log(options);
  CHECK(out.exit_code == core::ExitCode::ok);
  CHECK(out.json.at("matches").empty());
  options.log = dir / "bad.log";
  out = doctor_log(options);
  CHECK(out.exit_code == core::ExitCode::problem_found);
  REQUIRE(out.lines.size() >= 4);
  CHECK_THAT(out.lines[1].text, Catch::StartsWith("line 2: TypeError") && Catch::EndsWith("F1"));
  CHECK(out.lines[1].mark == Mark::problem);
  CHECK_THAT(out.lines[3].text, Catch::StartsWith("fix: "));
  CHECK(out.json["matches"][0]["line"] == 2);
  options.log = dir / "missing.log";
  CHECK_THROWS_AS(doctor_log(options), core::Error);
}

// The message doctor --log refuses `path` with; it must be bad input naming the file.
// The error `doctor --log PATH` ends in, which must be bad input naming the file, with a hint.
core::Error log_refused(const std::filesystem::path& path) {
  DoctorLogOptions options;
  options.log = path;
  const auto error = bevenv::testing::thrown_error([&] { (void)doctor_log(options); });
  REQUIRE(error.has_value());
  CHECK(error->code() == core::ExitCode::bad_input);
  CHECK_THAT(error->what(), Catch::Contains("`" + path.string() + "`"));
  CHECK_FALSE(error->hint().empty());
  return *error;
}

std::string log_refusal(const std::filesystem::path& path) { return log_refused(path).what(); }

TEST_CASE("doctor --log: FIFOs, devices and directories are refused without reading them") {
  const auto dir = test::temp_dir("logkinds");
  REQUIRE(::mkfifo((dir / "train.log").c_str(), 0600) == 0);
  // Without a writer, reading the FIFO would wait forever; /dev/urandom would never end.
  CHECK_THAT(log_refusal(dir / "train.log"), Catch::Contains("FIFO"));
  CHECK_THAT(log_refusal("/dev/urandom"), Catch::Contains("character device"));
  CHECK_THAT(log_refusal("/dev/zero"), Catch::Contains("character device"));
  CHECK_THAT(log_refusal(dir), Catch::Contains("directory"));
}

TEST_CASE("doctor --log: a binary file is refused, with where the binary data starts") {
  const auto dir = test::temp_dir("logbinary");
  std::string bytes = "epoch 1 done\n";
  for (int i = 0; i < 4096; ++i) bytes += static_cast<char>((i * 131 + 7) & 0xff);
  std::ofstream(dir / "core.dump", std::ios::binary) << bytes;
  const std::string message = log_refusal(dir / "core.dump");
  const std::size_t nul = bytes.find('\0');
  CHECK_THAT(message, Catch::Contains("binary data (at byte " + std::to_string(nul) + ")"));
}

TEST_CASE("doctor --log: an empty log is bad input that says where the traceback went") {
  const auto dir = test::temp_dir("empty-log");
  std::ofstream(dir / "train.log") << "";
  DoctorLogOptions options;
  options.log = dir / "train.log";
  const core::Error empty = log_refused(options.log);
  CHECK(std::string(empty.what()) == "`" + (dir / "train.log").string() + "` holds no log lines");
  CHECK_THAT(empty.hint(), Catch::Contains("2>&1"));
  // A log of blank lines was read: no failure in it, and no error.
  std::ofstream(dir / "train.log") << "\n\n";
  CHECK(doctor_log(options).exit_code == core::ExitCode::ok);
}

}  // namespace
}  // namespace bevenv::app
