// formula.cpp: the formulas' names and default frames (formula.h).
#include "compute/fractal/view/formula.h"

namespace ms {

const char* formula_name(Formula formula) {
    switch (formula) {
    case Formula::Mandelbrot: return "mandelbrot";
    case Formula::Multibrot3: return "multibrot3";
    case Formula::Multibrot4: return "multibrot4";
    case Formula::Multibrot5: return "multibrot5";
    case Formula::Multibrot6: return "multibrot6";
    case Formula::Multibrot7: return "multibrot7";
    case Formula::Multibrot8: return "multibrot8";
    case Formula::BurningShip: return "burning-ship";
    case Formula::Tricorn: return "tricorn";
    }
    return "?";
}

const char* formula_title(Formula formula) {
    switch (formula) {
    case Formula::Mandelbrot: return "Mandelbrot z^2 + c";
    case Formula::Multibrot3: return "Multibrot z^3 + c";
    case Formula::Multibrot4: return "Multibrot z^4 + c";
    case Formula::Multibrot5: return "Multibrot z^5 + c";
    case Formula::Multibrot6: return "Multibrot z^6 + c";
    case Formula::Multibrot7: return "Multibrot z^7 + c";
    case Formula::Multibrot8: return "Multibrot z^8 + c";
    case Formula::BurningShip: return "Burning Ship";
    case Formula::Tricorn: return "Tricorn (Mandelbar)";
    }
    return "?";
}

bool parse_formula(const std::string& name, Formula* formula) {
    for (Formula f : kAllFormulas)
        if (name == formula_name(f)) {
            *formula = f;
            return true;
        }
    return false;
}

std::string formula_names() {
    std::string names;
    for (Formula f : kAllFormulas) {
        if (!names.empty()) names += '|';
        names += formula_name(f);
    }
    return names;
}

// The frames were chosen by rendering each set whole at 16:9 (the README's gallery): the zoom
// puts the set's height, with a margin, in the frame's height (half the height spans 2 / zoom).
FormulaFrame formula_default_frame(Formula formula, bool julia) {
    if (julia) return {"0", "0", 1.25};
    switch (formula) {
    case Formula::Mandelbrot: return {"-0.5", "0", 64.0 / 27.0};
    case Formula::Multibrot3: return {"0", "0", 1.4};
    case Formula::Multibrot4: return {"-0.1", "0", 1.5};
    case Formula::Multibrot5: return {"0", "0", 1.5};
    case Formula::Multibrot6: return {"-0.05", "0", 1.55};
    case Formula::Multibrot7: return {"0", "0", 1.6};
    case Formula::Multibrot8: return {"-0.03", "0", 1.6};
    case Formula::BurningShip: return {"-0.4", "-0.5", 1.6};
    case Formula::Tricorn: return {"-0.3", "0", 1.5};
    }
    return {"0", "0", 1.0};
}

}  // namespace ms
