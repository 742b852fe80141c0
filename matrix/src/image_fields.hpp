#pragma once
// The fields of every matrix record, listed once: the image writer and reader (image.cpp) both
// walk these lists, so a field added to the model and here is written and read alike. `Io` is
// called with each field in turn; `T` is const for the writer.
#include <type_traits>

#include "bevenv/matrix/model.hpp"

namespace bevenv::matrix::detail {

template <class T, class U>
concept Record = std::is_same_v<std::remove_const_t<T>, U>;

template <class Io, Record<Origin> T>
void fields(Io& io, T& o) {
  io(o.file, o.line, o.column, o.layer);
}

template <class Io, Record<BuildStep> T>
void fields(Io& io, T& s) {
  io(s.name, s.package, s.command, s.vcs, s.sdist, s.workdir, s.env, s.note, s.origin);
}

template <class Io, Record<Artifact> T>
void fields(Io& io, T& a) {
  io(a.filename, a.url, a.sha256, a.size);
}

template <class Io, Record<Provenance> T>
void fields(Io& io, T& p) {
  io(p.index, p.read);
}

template <class Io, Record<PackageVersion> T>
void fields(Io& io, T& v) {
  io(v.name, v.version, v.local_is_published, v.requirements, v.python, v.cuda, v.sass, v.ptx);
  io(v.index_url, v.find_links, v.artifact_url, v.sha256, v.artifacts, v.generated, v.build);
  io(v.build_step, v.deps_complete, v.note, v.sources, v.origin);
}

template <class Io, Record<Package> T>
void fields(Io& io, T& p) {
  io(p.name, p.versions);
}

template <class Io, Record<PackageCondition> T>
void fields(Io& io, T& c) {
  io(c.name, c.specifier);
}

template <class Io, Record<TargetCondition> T>
void fields(Io& io, T& c) {
  io(c.python, c.cuda_driver, c.gpu_arch, c.platform);
}

template <class Io, Record<Rule> T>
void fields(Io& io, T& r) {
  io(r.id, r.kind, r.when_packages, r.when_target, r.when_profiles, r.then, r.message);
  io(r.symptom, r.fix, r.failure, r.note, r.sources, r.origin);
}

template <class Io, Record<EnvCondition> T>
void fields(Io& io, T& c) {
  io(c.python, c.packages, c.checks, c.container);
}

template <class Io, Record<LogSignature> T>
void fields(Io& io, T& s) {
  io(s.literal, s.regex);
}

template <class Io, Record<FailureFix> T>
void fields(Io& io, T& f) {
  io(f.when, f.text);
}

template <class Io, Record<FailureCheck> T>
void fields(Io& io, T& c) {
  io(c.package, c.ok, c.problem, c.warning);
}

template <class Io, Record<Failure> T>
void fields(Io& io, T& f) {
  io(f.id, f.title, f.cause, f.symptom, f.applies, f.applies_any, f.patterns, f.fixes, f.check);
  io(f.prevented_by, f.detected_by, f.sources, f.origin);
}

template <class Io, Record<Toolkit> T>
void fields(Io& io, T& t) {
  io(t.version, t.min_driver, t.minor_compat_driver, t.sm, t.images, t.sources, t.origin);
}

template <class Io, Record<NoPort> T>
void fields(Io& io, T& n) {
  io(n.gpus, n.reason, n.sources, n.origin);
}

template <class Io, Record<Profile> T>
void fields(Io& io, T& p) {
  io(p.name, p.summary, p.extends, p.lineage, p.python, p.cuda, p.base_image, p.requirements);
  io(p.preferred, p.indexes, p.find_links, p.env, p.builds, p.train_gpu_memory_gib);
  io(p.memory_basis, p.dataloader_workers_per_gpu, p.offline, p.port_of, p.changes, p.caveats);
  io(p.lifts, p.no_ports, p.sources, p.origin);
}

template <class Io, Record<Observed> T>
void fields(Io& io, T& o) {
  io(o.host, o.date, o.package, o.version, o.target, o.outcome, o.check, o.detail, o.origin);
}

template <class Io, Record<ObservedHost> T>
void fields(Io& io, T& h) {
  io(h.host, h.hostname, h.date, h.driver, h.cuda_driver, h.gpus, h.kernels, h.nccl_version);
  io(h.nccl_outcome, h.shm_bytes, h.origin);
}

template <class Io, Record<Matrix> T>
void fields(Io& io, T& m) {
  io(m.version, m.schema, m.packages, m.rules, m.toolkits, m.profiles, m.observed);
  io(m.observed_hosts, m.failures);
}

}  // namespace bevenv::matrix::detail
