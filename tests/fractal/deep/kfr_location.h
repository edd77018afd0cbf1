// kfr_location.h: a location of assets/locations/ (their sources are in its README) for the
// deep-zoom tests: the file's centre and iterations, and its zoom or the one given.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/deep_location.h"
#include "compute/io/assets.h"

namespace ms::test {

inline DeepLocation load_location(const std::string& name, const char* zoom = nullptr) {
    DeepLocation location;
    EXPECT_EQ(read_kfr((find_data_dir("assets") / "locations" / (name + ".kfr")).string(), &location), "");
    if (zoom) {
        EXPECT_EQ(parse_deep_zoom(zoom, &location.zoom), "");
    }
    return location;
}

}  // namespace ms::test
