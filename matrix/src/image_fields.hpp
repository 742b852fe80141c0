#pragma once
// The fields of every matrix record, listed once: the image writer and reader (image.cpp) both
// walk these lists, so a field added to the model and here is written and read alike. `Io` is
// called with each field in turn; `T` is const for the writer.
#include <type_traits>

#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix::detail {

template <class T, class U>
concept Record = std::is_same_v<std::remove_const_t<T>, U>;

// `fields(io, record)` for one record type: calls `io` with each field, in this order.
#define BEVENV_IMAGE_FIELDS(Type, r, ...) \
  template <class Io, Record<Type> T>     \
  void fields(Io& io, T& r) {             \
    io(__VA_ARGS__);                      \
  }

BEVENV_IMAGE_FIELDS(Origin, o, o.file, o.line, o.column, o.layer)
BEVENV_IMAGE_FIELDS(BuildStep, s, s.name, s.package, s.command, s.vcs, s.sdist, s.workdir, s.env,
                    s.note, s.origin)
BEVENV_IMAGE_FIELDS(Artifact, a, a.filename, a.url, a.sha256, a.size)
BEVENV_IMAGE_FIELDS(Provenance, p, p.index, p.read)
// The name and version lead: a reader that leaves a release out still reads its version.
BEVENV_IMAGE_FIELDS(PackageVersion, v, v.name, v.version, v.local_is_published, v.requirements,
                    v.python, v.cuda, v.sass, v.ptx, v.index_url, v.find_links, v.artifact_url,
                    v.sha256, v.artifacts, v.generated, v.build, v.build_step, v.deps_complete,
                    v.newer_stands_for, v.note, v.sources, v.origin)
// The reader reads a package's fields itself (image.cpp), leaving some releases out.
BEVENV_IMAGE_FIELDS(Package, p, p.name, p.versions)
BEVENV_IMAGE_FIELDS(PackageCondition, c, c.name, c.specifier)
BEVENV_IMAGE_FIELDS(TargetCondition, c, c.python, c.cuda_driver, c.gpu_arch, c.platform)
BEVENV_IMAGE_FIELDS(Rule, r, r.id, r.kind, r.when_packages, r.when_target, r.when_profiles, r.then,
                    r.message, r.symptom, r.fix, r.failure, r.note, r.sources, r.origin)
BEVENV_IMAGE_FIELDS(EnvCondition, c, c.python, c.packages, c.checks, c.container)
BEVENV_IMAGE_FIELDS(LogSignature, s, s.literal, s.regex)
BEVENV_IMAGE_FIELDS(FailureFix, f, f.when, f.text)
BEVENV_IMAGE_FIELDS(FailureCheck, c, c.package, c.ok, c.problem, c.warning)
BEVENV_IMAGE_FIELDS(Failure, f, f.id, f.title, f.cause, f.symptom, f.applies, f.applies_any,
                    f.patterns, f.fixes, f.check, f.prevented_by, f.detected_by, f.sources,
                    f.origin)
BEVENV_IMAGE_FIELDS(Toolkit, t, t.version, t.min_driver, t.minor_compat_driver, t.sm, t.images,
                    t.sources, t.origin)
BEVENV_IMAGE_FIELDS(NoPort, n, n.gpus, n.reason, n.sources, n.origin)
BEVENV_IMAGE_FIELDS(Profile, p, p.name, p.summary, p.extends, p.lineage, p.python, p.cuda,
                    p.base_image, p.requirements, p.preferred, p.indexes, p.find_links, p.env,
                    p.builds, p.train_gpu_memory_gib, p.memory_basis, p.dataloader_workers_per_gpu,
                    p.offline, p.port_of, p.changes, p.caveats, p.lifts, p.no_ports, p.sources,
                    p.origin)
BEVENV_IMAGE_FIELDS(Observed, o, o.host, o.date, o.package, o.version, o.target, o.outcome, o.check,
                    o.detail, o.origin)
BEVENV_IMAGE_FIELDS(ObservedHost, h, h.host, h.hostname, h.date, h.driver, h.cuda_driver, h.gpus,
                    h.kernels, h.nccl_version, h.nccl_outcome, h.shm_bytes, h.origin)
BEVENV_IMAGE_FIELDS(Matrix, m, m.version, m.schema, m.packages, m.rules, m.toolkits, m.profiles,
                    m.observed, m.observed_hosts, m.failures)

#undef BEVENV_IMAGE_FIELDS

}  // namespace bevenv::matrix::detail
