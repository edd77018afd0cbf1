// colouring.cpp: the colouring settings' names and checks (colouring.h).
#include "compute/fractal/view/colouring.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ms {

namespace {

const char* base_name(ColourBase base) {
    switch (base) {
    case ColourBase::Smooth: return "smooth";
    case ColourBase::Histogram: return "histogram";
    case ColourBase::Stripe: return "stripe";
    }
    return "?";
}

std::string shown(const std::string& text) { return text.size() > 40 ? text.substr(0, 40) + "..." : text; }

}  // namespace

std::string colouring_methods_text(const Colouring& colouring) {
    std::string text = base_name(colouring.base);
    if (colouring.distance_estimation) text += ",de";
    if (colouring.slopes) text += ",slope";
    if (colouring.atom_domains) text += ",atom";
    return text;
}

std::string parse_colouring_methods(const std::string& text, Colouring* colouring) {
    Colouring parsed = *colouring;
    parsed.base = ColourBase::Smooth;
    parsed.distance_estimation = parsed.slopes = parsed.atom_domains = false;
    int bases = 0;
    std::istringstream in(text);
    std::string item;
    int items = 0;
    while (std::getline(in, item, ',')) {
        ++items;
        if (item == "smooth" || item == "histogram" || item == "stripe") {
            if (++bases > 1)
                return "the colouring '" + shown(text) +
                       "' names more than one base (smooth, histogram and stripe exclude each other)";
            parsed.base = item == "smooth"      ? ColourBase::Smooth
                          : item == "histogram" ? ColourBase::Histogram
                                                : ColourBase::Stripe;
        } else if (item == "de") {
            if (parsed.distance_estimation) return "the colouring '" + shown(text) + "' names de twice";
            parsed.distance_estimation = true;
        } else if (item == "slope") {
            if (parsed.slopes) return "the colouring '" + shown(text) + "' names slope twice";
            parsed.slopes = true;
        } else if (item == "atom") {
            if (parsed.atom_domains) return "the colouring '" + shown(text) + "' names atom twice";
            parsed.atom_domains = true;
        } else {
            return "unknown colouring method '" + shown(item) +
                   "' (known: smooth, histogram, stripe, de, slope, atom; combine them with commas, e.g. "
                   "histogram,de,slope)";
        }
    }
    if (items == 0 || text.back() == ',') return "the colouring '" + shown(text) + "' has an empty method";
    *colouring = parsed;
    return {};
}

const char* interior_colour_name(InteriorColour interior) {
    return interior == InteriorColour::Period ? "period" : "flat";
}

std::string parse_interior_colour(const std::string& text, InteriorColour* interior) {
    if (text == "flat") *interior = InteriorColour::Flat;
    else if (text == "period") *interior = InteriorColour::Period;
    else return "unknown interior colouring '" + shown(text) + "' (known: flat, period)";
    return {};
}

std::string validate_colouring(const Colouring& c) {
    if (c.stripe_density < 1 || c.stripe_density > kMaxStripeDensity)
        return "the stripe density must be a whole number from 1 to " + std::to_string(kMaxStripeDensity) + " (got " +
               std::to_string(c.stripe_density) + ")";
    if (!(c.de_band_px > 0.0 && c.de_band_px <= kMaxDeBandPx))
        return "the distance-estimation band must be more than 0 and at most " + std::to_string(int(kMaxDeBandPx)) +
               " pixels";
    if (!(c.slope_strength >= 0.0 && c.slope_strength <= kMaxSlopeStrength))
        return "the slope strength must be from 0 to " + std::to_string(int(kMaxSlopeStrength));
    if (!std::isfinite(c.slope_angle_deg) || std::fabs(c.slope_angle_deg) > 3600.0)
        return "the slope angle must be a number of degrees from -3600 to 3600";
    if (!(c.atom_strength >= 0.0 && c.atom_strength <= 1.0)) return "the atom-domain strength must be from 0 to 1";
    return {};
}

bool colouring_is_plain(const Colouring& c) {
    return c.base == ColourBase::Smooth && !c.distance_estimation && !c.slopes && c.interior == InteriorColour::Flat &&
           !c.atom_domains;
}

std::string deep_colouring_problem(const Colouring& c) {
    if (c.base == ColourBase::Stripe)
        return "the stripe colouring averages every iteration of the orbit, which the deep-zoom path skips "
               "(BLA), so it is not available past FP64: use smooth or histogram there, with de, slope and atom";
    if (c.interior == InteriorColour::Period)
        return "the period interior needs each interior orbit's iterations, which the deep-zoom path skips (BLA), "
               "so it is not available past FP64: use --interior=flat there";
    return {};
}

bool drop_deep_unavailable_colouring(Colouring* c) {
    const bool dropped = !deep_colouring_problem(*c).empty();
    if (c->base == ColourBase::Stripe) c->base = ColourBase::Smooth;
    c->interior = InteriorColour::Flat;
    return dropped;
}

}  // namespace ms
