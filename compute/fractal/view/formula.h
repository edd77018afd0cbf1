// formula.h: which escape-time map a view iterates, and whether it draws the map's parameter
// plane (the "Mandelbrot-like" set: z_0 = 0, c = pixel) or one of its Julia sets (z_0 = pixel,
// c fixed). The maths of each formula (one step, its degree, bailout and smooth value) lives in
// formula_math.h, shared by the CPU reference, the SIMD CPU path and the CUDA kernels, where the
// formula is a compile-time parameter: no path branches on it per iteration.
//
//   mandelbrot     z^2 + c
//   multibrot3..8  z^d + c, d = 3..8
//   burning-ship   (|Re z| + i |Im z|)^2 + c
//   tricorn        conj(z)^2 + c   (the Mandelbar)
#pragma once

#include <cstdint>
#include <string>

namespace ms {

enum class Formula : uint8_t {
    Mandelbrot,
    Multibrot3,
    Multibrot4,
    Multibrot5,
    Multibrot6,
    Multibrot7,
    Multibrot8,
    BurningShip,
    Tricorn,
};

inline constexpr int kFormulaCount = 9;

// Every formula in the order of the enum (for loops over the family: tests, bench, the combo).
inline constexpr Formula kAllFormulas[kFormulaCount] = {Formula::Mandelbrot, Formula::Multibrot3,  Formula::Multibrot4,
                                                        Formula::Multibrot5, Formula::Multibrot6,  Formula::Multibrot7,
                                                        Formula::Multibrot8, Formula::BurningShip, Formula::Tricorn};

// The command-line name ("mandelbrot", "multibrot3", ..., "burning-ship", "tricorn"), which is also
// the PNG metadata's.
const char* formula_name(Formula formula);
// A name for people ("Multibrot z^3 + c", "Burning Ship", ...): the window's combo.
const char* formula_title(Formula formula);
// formula_name() back to the formula; false for anything else.
bool parse_formula(const std::string& name, Formula* formula);
// "mandelbrot|multibrot3|...|tricorn", for help texts and error sentences.
std::string formula_names();

// d in z^d + c (2 for Burning Ship and Tricorn).
constexpr int formula_degree(Formula formula) {
    switch (formula) {
    case Formula::Multibrot3: return 3;
    case Formula::Multibrot4: return 4;
    case Formula::Multibrot5: return 5;
    case Formula::Multibrot6: return 6;
    case Formula::Multibrot7: return 7;
    case Formula::Multibrot8: return 8;
    default: return 2;
    }
}

// Whether the map is holomorphic (complex-differentiable in z): then the distance estimate's
// derivative is one complex number, else (Burning Ship, Tricorn: |.| and conj are not) the
// 2x2 real Jacobian (formula_step-inl.h's formula_derivative_step).
constexpr bool formula_is_holomorphic(Formula formula) {
    return formula != Formula::BurningShip && formula != Formula::Tricorn;
}

// The performance model's operation counts (compute/perf/perf_model.h), from formula_step
// (formula_math.h) as the paths compile it.
//   CPU (SIMD path, unfused): one iteration = the step + |z|^2 (zr*zr, zi*zi, +) + the escape
//   compare. Degree 2: (zr+zr), *zi, +ci, zr2-zi2, +cr, two squares, +, compare = 9 vector ops;
//   the Burning Ship's |.| is one more (an AND on the FP ports), the Tricorn's ci - t is the same
//   count. z^d adds to z^2 (3 of those ops) a complex product (4 multiplies, 2 adds) or a
//   square (3 multiplies, 2 adds) per square-and-multiply stage.
constexpr int formula_cpu_ops_per_iteration(Formula formula) {
    switch (formula) {
    case Formula::Mandelbrot: return 9;
    case Formula::Multibrot3: return 15;  // z^2 z
    case Formula::Multibrot4: return 14;  // (z^2)^2
    case Formula::Multibrot5: return 20;  // (z^2)^2 z
    case Formula::Multibrot6: return 20;  // (z^2 z)^2
    case Formula::Multibrot7: return 26;  // (z^2 z)^2 z
    case Formula::Multibrot8: return 19;  // ((z^2)^2)^2
    case Formula::BurningShip: return 10;
    case Formula::Tricorn: return 9;
    }
    return 9;
}
//   CUDA (phase 2's block of steps): the FP instructions of one step without the escape test,
//   which runs once per block. Degree 2: 6 (FMUL zr*zi, FADD, FADD, FFMA 2t + ci, two FMUL
//   squares; |t| and -t are operand modifiers of that FFMA); z^d: the CPU count less the |z|^2
//   add and the compare (--fmad=false: nothing is fused).
constexpr int formula_cuda_step_instructions(Formula formula) {
    return formula_degree(formula) == 2 ? 6 : formula_cpu_ops_per_iteration(formula) - 2;
}

// Where a formula's picture opens: the whole set in a 16:9 frame. Julia sets of every formula
// open centred on 0 (they lie within the escape radius around it).
struct FormulaFrame {
    const char* center_re;
    const char* center_im;
    double zoom;
};
FormulaFrame formula_default_frame(Formula formula, bool julia);

}  // namespace ms
