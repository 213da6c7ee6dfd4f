// A fake cgroup v2 kernel for the cgroup layer's tests (engine/src/cgroup_fs.hpp):
// a cgroup2 tree laid out in a temporary folder with the files the kernel
// provides, whose changes (writes, mkdir, rmdir) are checked against the
// kernel's rules (Documentation/admin-guide/cgroup-v2.rst) before they are
// applied, and refused with the kernel's errno where it would refuse them:
//   - no internal processes: "+ctrl" into a non-root cgroup's
//     cgroup.subtree_control while its cgroup.procs is non-empty, or a process
//     moved into a non-root cgroup whose subtree_control is non-empty: EBUSY;
//   - top-down: "+ctrl" not in the cgroup's own cgroup.controllers: ENOENT;
//     "-ctrl" while a child still enables it: EBUSY; a child's
//     cgroup.controllers is its parent's subtree_control, and a controller's
//     interface files (memory.max, ...) exist only where it is in
//     cgroup.controllers;
//   - rmdir of a cgroup with a process or a child: EBUSY;
//   - read-only files (cgroup.controllers, cgroup.events, memory.current,
//     memory.events, ...): EACCES; values the kernel would not parse: EINVAL.
// Every operation is logged in order and every refusal recorded, so a test
// can require "no refusal" of a correct order and see a wrong one fail.
// It is not a kernel: no charging, no OOM killer, no threads, no
// permissions beyond the delegation mark; tests write the kernel's counters
// (memory.current, memory.events) themselves with set_file().
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cgroup_fs.hpp"

namespace proofpipe::test {

class FakeCgroupKernel : public engine::CgroupFs {
 public:
  // A cgroup2 mount at <sysroot>/sys/fs/cgroup offering `controllers`;
  // `memory_peak`: whether memory.peak exists (Linux >= 5.19).
  FakeCgroupKernel(std::filesystem::path sysroot, bool memory_peak,
                   std::vector<std::string> controllers = {"cpu", "io", "memory", "pids"})
      : root_(sysroot / "sys/fs/cgroup"), memory_peak_(memory_peak) {
    std::filesystem::create_directories(root_);
    set_file("", "cgroup.controllers", join(controllers));
    set_file("", "cgroup.subtree_control", "");
    set_file("", "cgroup.procs", "");
  }
  static std::string mounts() { return "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n"; }
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path at(const std::string& rel) const { return rel.empty() ? root_ : root_ / rel; }

  const std::vector<std::string>& log() const { return log_; }
  const std::vector<std::string>& refusals() const { return refusals_; }
  // Called before every read through the layer (a test's clock of "the kernel").
  std::function<void(const std::filesystem::path&)> on_read;

  void delegate(const std::string& rel) { delegated_.insert(at(rel)); }
  // A process leaves the tree (it exited and was reaped).
  void exit_process(long pid) {
    for (const auto& cg : all_cgroups()) {
      auto procs = pids_of(cg);
      std::erase(procs, pid);
      write_pids(cg, procs);
    }
    refresh_events();
  }
  // What the kernel would write itself (counters, memory.current).
  void set_file(const std::string& rel, const std::string& name, const std::string& text) {
    std::ofstream(at(rel) / name, std::ios::trunc) << text;
  }
  std::string file(const std::string& rel, const std::string& name) const {
    std::ifstream f(at(rel) / name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::vector<long> procs(const std::string& rel) const { return pids_of(at(rel)); }

  std::optional<std::string> read(const std::filesystem::path& file) const override {
    if (on_read) on_read(file);
    return CgroupFs::read(file);
  }

  Status write(const std::filesystem::path& file, const std::string& value) override {
    const std::filesystem::path cg = file.parent_path();
    const std::string name = file.filename().string();
    const std::string what = "write " + rel(file) + " " + value;
    if (!is_cgroup(cg) || !std::filesystem::exists(file)) return refuse(what, ENOENT);
    static const std::set<std::string> read_only = {"cgroup.controllers", "cgroup.events", "memory.current",
                                                    "memory.events",      "memory.peak",   "memory.stat",
                                                    "pids.current"};
    if (read_only.count(name)) return refuse(what, EACCES);
    if (name == "cgroup.procs") {
      const long pid = value == "0" ? long(::getpid()) : std::stol(value);
      if (cg != root_ && !words(cg / "cgroup.subtree_control").empty()) return refuse(what, EBUSY);
      for (const auto& other : all_cgroups()) {
        auto p = pids_of(other);
        std::erase(p, pid);
        write_pids(other, p);
      }
      auto p = pids_of(cg);
      p.push_back(pid);
      write_pids(cg, p);
      refresh_events();
    } else if (name == "cgroup.subtree_control") {
      auto enabled = words(file);
      for (const auto& token : split(value)) {
        const std::string ctrl = token.substr(1);
        if (token[0] == '+') {
          if (!contains(words(cg / "cgroup.controllers"), ctrl)) return refuse(what, ENOENT);
          if (cg != root_ && !pids_of(cg).empty()) return refuse(what, EBUSY);
          if (!contains(enabled, ctrl)) enabled.push_back(ctrl);
        } else if (token[0] == '-') {
          for (const auto& child : child_cgroups(cg)) {
            if (contains(words(child / "cgroup.subtree_control"), ctrl)) return refuse(what, EBUSY);
          }
          std::erase(enabled, ctrl);
        } else {
          return refuse(what, EINVAL);
        }
      }
      std::ofstream(file, std::ios::trunc) << join(enabled);
      for (const auto& child : child_cgroups(cg)) set_controllers(child, enabled);
    } else if (name == "memory.oom.group") {
      if (value != "0" && value != "1") return refuse(what, EINVAL);
      std::ofstream(file, std::ios::trunc) << value;
    } else {
      // memory.max, memory.swap.max, pids.max, ...: "max" or a number.
      if (value != "max" && (value.empty() || value.find_first_not_of("0123456789") != std::string::npos))
        return refuse(what, EINVAL);
      std::ofstream(file, std::ios::trunc) << value;
    }
    log_.push_back(what);
    return Status::ok();
  }

  Status make_dir(const std::filesystem::path& dir) override {
    const std::string what = "mkdir " + rel(dir);
    if (!is_cgroup(dir.parent_path())) return refuse(what, ENOENT);
    if (std::filesystem::exists(dir)) return refuse(what, EEXIST);
    std::filesystem::create_directory(dir);
    std::ofstream(dir / "cgroup.subtree_control") << "";
    std::ofstream(dir / "cgroup.procs") << "";
    std::ofstream(dir / "cgroup.events") << "populated 0\nfrozen 0\n";
    set_controllers(dir, words(dir.parent_path() / "cgroup.subtree_control"));
    log_.push_back(what);
    return Status::ok();
  }

  Status remove_dir(const std::filesystem::path& dir) override {
    const std::string what = "rmdir " + rel(dir);
    if (!is_cgroup(dir)) return std::filesystem::exists(dir) ? refuse(what, ENOTDIR) : Status::ok();  // ENOENT: done
    if (dir == root_ || !child_cgroups(dir).empty() || !pids_of(dir).empty()) return refuse(what, EBUSY);
    std::filesystem::remove_all(dir);
    log_.push_back(what);
    return Status::ok();
  }

  bool delegation_marked(const std::filesystem::path& dir) const override { return delegated_.count(dir) != 0; }

  // Index of the first log entry starting with `prefix` (-1: none).
  long find(const std::string& prefix) const {
    for (size_t i = 0; i < log_.size(); ++i) {
      if (log_[i].rfind(prefix, 0) == 0) return long(i);
    }
    return -1;
  }

 private:
  static std::vector<std::string> split(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }
  static std::string join(const std::vector<std::string>& w) {
    std::string s;
    for (const auto& x : w) s += (s.empty() ? "" : " ") + x;
    return s;
  }
  static bool contains(const std::vector<std::string>& w, const std::string& x) {
    return std::find(w.begin(), w.end(), x) != w.end();
  }
  std::vector<std::string> words(const std::filesystem::path& f) const {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return split(ss.str());
  }
  std::string rel(const std::filesystem::path& p) const { return "/" + p.lexically_relative(root_).string(); }
  bool is_cgroup(const std::filesystem::path& dir) const {
    return std::filesystem::is_directory(dir) && std::filesystem::exists(dir / "cgroup.procs");
  }
  std::vector<std::filesystem::path> child_cgroups(const std::filesystem::path& dir) const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.is_directory()) out.push_back(e.path());
    }
    return out;
  }
  std::vector<std::filesystem::path> all_cgroups() const {
    std::vector<std::filesystem::path> out{root_};
    for (const auto& e : std::filesystem::recursive_directory_iterator(root_)) {
      if (e.is_directory()) out.push_back(e.path());
    }
    return out;
  }
  std::vector<long> pids_of(const std::filesystem::path& cg) const {
    std::vector<long> out;
    for (const auto& w : words(cg / "cgroup.procs")) out.push_back(std::stol(w));
    return out;
  }
  void write_pids(const std::filesystem::path& cg, const std::vector<long>& pids) {
    std::ofstream f(cg / "cgroup.procs", std::ios::trunc);
    for (long p : pids) f << p << '\n';
  }
  bool populated(const std::filesystem::path& cg) const {
    if (!pids_of(cg).empty()) return true;
    for (const auto& c : child_cgroups(cg)) {
      if (populated(c)) return true;
    }
    return false;
  }
  void refresh_events() {
    for (const auto& cg : all_cgroups()) {
      if (cg != root_)
        std::ofstream(cg / "cgroup.events", std::ios::trunc) << "populated " << populated(cg) << "\nfrozen 0\n";
    }
  }
  // A cgroup's controllers (its parent's subtree_control) and their files.
  void set_controllers(const std::filesystem::path& cg, const std::vector<std::string>& ctrls) {
    std::ofstream(cg / "cgroup.controllers", std::ios::trunc) << join(ctrls);
    const bool memory = contains(ctrls, "memory"), pids = contains(ctrls, "pids");
    const std::vector<std::pair<std::string, std::string>> mem_files = {
        {"memory.max", "max"},       {"memory.swap.max", "max"},
        {"memory.oom.group", "0"},   {"memory.current", "0"},
        {"memory.stat", "anon 0\n"}, {"memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"}};
    for (const auto& [name, init] : mem_files) toggle(cg / name, memory, init);
    toggle(cg / "memory.peak", memory && memory_peak_, "0");
    toggle(cg / "pids.max", pids, "max");
    toggle(cg / "pids.current", pids, "0");
  }
  static void toggle(const std::filesystem::path& f, bool present, const std::string& init) {
    if (present && !std::filesystem::exists(f)) std::ofstream(f) << init;
    if (!present) std::filesystem::remove(f);
  }
  Status refuse(const std::string& what, int err) {
    refusals_.push_back(what + ": " + std::strerror(err));
    return make_error(ErrorCode::kIo, "{}: {}", what, std::strerror(err));
  }

  std::filesystem::path root_;
  bool memory_peak_;
  std::set<std::filesystem::path> delegated_;
  std::vector<std::string> log_, refusals_;
};

}  // namespace proofpipe::test
