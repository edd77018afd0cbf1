// test_view_record.cpp: the view JSON read from a PNG's tEXt chunk is outside input. Each case
// below is a hazard of such input (UBSan's float-cast-overflow, a path in "palette", a centre
// the window could not parse): view_from_json refuses it with one sentence and no undefined
// behaviour, and the sentence never carries the JSON library's own text.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "compute/fractal/view/view_record.h"

namespace {

// A valid view's JSON with one field replaced by `value` (raw JSON text).
std::string view_json_with(const std::string& key, const std::string& value) {
    std::string json = R"({"center_re":"-0.5","center_im":"0","zoom":2.0,"width":64,"height":36,"iterations":500,)"
                       R"("palette":"classic","offset":0.0,"density":1.0,"precision":"fp64","supersample":1})";
    const std::string field = "\"" + key + "\":";
    const size_t at = json.find(field);
    EXPECT_NE(at, std::string::npos) << key;
    const size_t value_start = at + field.size();
    const size_t value_end = json.find_first_of(",}", value_start);
    return json.substr(0, value_start) + value + json.substr(value_end);
}

// The sentence view_from_json throws, or "" when it accepts the JSON.
std::string refusal(const std::string& json) {
    try {
        ms::view_from_json(json);
        return "";
    } catch (const std::runtime_error& e) {
        return e.what();
    }
}

}  // namespace

TEST(ViewRecord, TheValidBaseIsAccepted) {
    EXPECT_EQ(refusal(view_json_with("zoom", "2.0")), "");
    EXPECT_EQ(ms::view_from_json(view_json_with("iterations", "700")).view.max_iterations, 700);
}

TEST(ViewRecord, FloatsWhereWholeNumbersBelongAreRefused) {
    // 3e9 and 1e10 cast from double to int would be undefined behaviour.
    for (const auto& [key, value] :
         std::initializer_list<std::pair<const char*, const char*>>{{"iterations", "3e9"},
                                                                    {"supersample", "1e10"},
                                                                    {"width", "1e300"},
                                                                    {"height", "-1e300"},
                                                                    {"iterations", "2.5"},
                                                                    {"iterations", "100000000001"},
                                                                    {"width", "18446744073709551615"},
                                                                    {"supersample", "5"},
                                                                    {"supersample", "0"},
                                                                    {"width", "0"},
                                                                    {"iterations", "\"700\""},
                                                                    {"iterations", "null"},
                                                                    {"zoom", "\"1e\""},
                                                                    {"zoom", "true"},
                                                                    {"center_re", "0.5"}}) {
        const std::string why = refusal(view_json_with(key, value));
        EXPECT_NE(why, "") << key << " = " << value;
        EXPECT_EQ(why.find("json.exception"), std::string::npos) << why;
    }
}

TEST(ViewRecord, OutOfRangeZoomAndNonDecimalCentresAreRefused) {
    // Past the deep zoom's limit (1E60000), as text and as an old file's number.
    EXPECT_NE(refusal(view_json_with("zoom", "\"1E60001\"")).find("zoom"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("zoom", "\"1e99999999999\"")).find("zoom"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("zoom", "\"-4E533\"")).find("zoom"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("zoom", "1e-9")).find("zoom"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("zoom", "0")), "");
    // A hex centre: a view the window could not parse, and would hang on.
    EXPECT_NE(refusal(view_json_with("center_re", "\"0x1p-1\"")).find("not a decimal number"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("center_im", "\" 0\"")), "");
}

TEST(ViewRecord, PaletteNamesStayInsideThePalettesFolder) {
    // A PNG's "palette" must never reach the file system as a path.
    for (const char* name :
         {"\"../../../etc/passwd\"", "\"/etc/passwd\"", "\"classic/..\"", "\"\"", "\"a b\"", "\"..\"", "\"-x\""})
        EXPECT_NE(refusal(view_json_with("palette", name)).find("not a palette name"), std::string::npos) << name;
    EXPECT_EQ(refusal(view_json_with("palette", "\"no-such_palette2\"")), "");  // a name: load_palette says if unknown
}

TEST(ViewRecord, NotJsonOrNotAnObjectIsOneSentence) {
    for (const char* text : {"", "not json", "[1,2]", "42", "{", "{\"center_re\": \"1\"}", "\"x\""}) {
        const std::string why = refusal(text);
        EXPECT_NE(why.find("the view metadata is malformed"), std::string::npos) << text << ": " << why;
        EXPECT_EQ(why.find("json.exception"), std::string::npos) << why;
    }
}

// The zoom travels as text; a file may carry it as a JSON number instead.
TEST(ViewRecord, OldNumericZoomsAreStillRead) {
    EXPECT_EQ(ms::view_from_json(view_json_with("zoom", "2.0")).view.zoom.value(), 2.0);
    EXPECT_EQ(ms::view_from_json(view_json_with("zoom", "1.5e7")).view.zoom.value(), 1.5e7);
    // 1.7e308 is a deep view, not an error.
    EXPECT_EQ(ms::view_from_json(view_json_with("zoom", "1.7e308")).view.zoom.value(), 1.7e308);
}

TEST(ViewRecord, ShallowZoomsRoundTripToTheSameDouble) {
    // Every double a shallow view can hold reads back bit for bit through the text.
    ms::ViewRecord record;
    const double zooms[] = {
        ms::kDefaultZoom,      1.0, 0.001, 3.75, 12345.5, 1e13, 2.0 / 3.0, 1e300, 0.1 + 0.2, 7.123456789012345e150,
        1.7976931348623157e308};
    for (double zoom : zooms) {
        record.view.zoom = zoom;
        const ms::ViewRecord back = ms::view_from_json(ms::view_to_json(record));
        EXPECT_EQ(back.view.zoom.value(), zoom) << ms::view_to_json(record);
        EXPECT_EQ(back.view.zoom, record.view.zoom);
    }
}

TEST(ViewRecord, DeepViewsRoundTripExactly) {
    ms::ViewRecord record;
    ASSERT_EQ(ms::ViewZoom::parse("4.00000000000E533", &record.view.zoom), "");
    record.view.center_re = "-1.7490045098634880553014120452553217530549082353698328808427633113213955466987";
    record.view.center_im = "-0.000000032618637063706542085689432486436373497963437283658093";
    record.view.max_iterations = 5000000000;  // past 2^31
    record.precision = ms::Precision::DeepFloatExp;
    const std::string json = ms::view_to_json(record);
    EXPECT_NE(json.find("\"zoom\":\"4.00000000000E533\""), std::string::npos) << json;
    const ms::ViewRecord back = ms::view_from_json(json);
    EXPECT_EQ(back.view.zoom, record.view.zoom);
    EXPECT_EQ(back.view.zoom.text(), "4.00000000000E533");
    EXPECT_FALSE(back.view.zoom.fits_double());
    EXPECT_EQ(back.view.zoom.deep().exponent10, 533);
    EXPECT_EQ(back.view.center_re, record.view.center_re);
    EXPECT_EQ(back.view.center_im, record.view.center_im);
    EXPECT_EQ(back.view.max_iterations, 5000000000);
    EXPECT_EQ(back.precision, ms::Precision::DeepFloatExp);
    EXPECT_EQ(ms::view_to_json(back), json);
}

TEST(ViewRecord, ZoomTextKeepsItsExtendedValue) {
    ms::ViewZoom zoom;
    ASSERT_EQ(ms::ViewZoom::parse("1e50", &zoom), "");
    EXPECT_EQ(zoom.deep().mantissa, 1.0);  // {1, 50}: the deep path samples exactly 1e50
    EXPECT_EQ(zoom.deep().exponent10, 50);
    EXPECT_EQ(zoom.value(), 1e50);
    EXPECT_EQ(ms::ViewZoom(1e50).deep().mantissa, 1.0);  // from the double's shortest text
    EXPECT_EQ(ms::ViewZoom(1e50), zoom);
    EXPECT_EQ(zoom.text(), "1e+50");
    EXPECT_EQ(ms::ViewZoom(300.0).text(), "300");  // as the window's --print-view printed it
    EXPECT_EQ(ms::ViewZoom(1.5e7).text(), "15000000");
    EXPECT_EQ(ms::ViewZoom(0.001).text(), "0.001");
    EXPECT_EQ(ms::ViewZoom(ms::kDefaultZoom).text(), "2.3703703703703702");
    ASSERT_EQ(ms::ViewZoom::parse("5.0E-1", &zoom), "");
    EXPECT_EQ(zoom.value(), 0.5);
    EXPECT_NE(ms::ViewZoom::parse("1e", &zoom), "");
    EXPECT_NE(ms::ViewZoom::parse("-1", &zoom), "");
    EXPECT_NE(ms::ViewZoom::parse("0", &zoom), "");
    // Doubles no zoom can be: refused by validate_view, never a crash.
    for (double bad : {1e-320, 0.0, -2.0, HUGE_VAL, std::nan("")}) {
        ms::View view;
        view.zoom = bad;
        EXPECT_FALSE(view.zoom.is_valid()) << bad;
        EXPECT_NE(ms::validate_view(view).find("the zoom must be between"), std::string::npos) << bad;
    }
}

TEST(ViewRecord, PrecisionResolvesByDepth) {
    ms::View view;
    view.width = 48;
    view.height = 27;
    EXPECT_EQ(ms::resolve_precision(view, ms::Precision::Auto), ms::Precision::Fp32);
    view.zoom = 1e9;
    EXPECT_EQ(ms::resolve_precision(view, ms::Precision::Auto), ms::Precision::Fp64);
    view.zoom = 1e50;
    EXPECT_EQ(ms::resolve_precision(view, ms::Precision::Auto), ms::Precision::DeepDouble);
    EXPECT_EQ(ms::resolve_direct_precision(view, ms::Precision::Auto), ms::Precision::Fp64);
    ASSERT_EQ(ms::ViewZoom::parse("1e300", &view.zoom), "");
    EXPECT_EQ(ms::resolve_precision(view, ms::Precision::Auto), ms::Precision::DeepFloatExp);
    // More iterations than the direct kernels count go deep even where FP32 resolves.
    view.zoom = 1.0;
    view.max_iterations = ms::kMaxDirectIterations + 1;
    EXPECT_EQ(ms::resolve_precision(view, ms::Precision::Auto), ms::Precision::DeepDouble);
    EXPECT_THROW(ms::direct_iterations(view), std::invalid_argument);
    for (ms::Precision p : {ms::Precision::Auto, ms::Precision::Fp32, ms::Precision::Fp64, ms::Precision::DeepDouble,
                            ms::Precision::DeepFloatExp}) {
        ms::Precision back;
        ASSERT_TRUE(ms::precision_from_name(ms::precision_name(p), &back));
        EXPECT_EQ(back, p);
    }
}

TEST(ViewRecord, FormulaAndJuliaParameterRoundTripExactly) {
    for (ms::Formula f : ms::kAllFormulas) {
        for (bool julia : {false, true}) {
            ms::ViewRecord record;
            record.view.formula = f;
            record.view.julia = julia;
            record.view.julia_re = "-0.74543000000000000000000000000000000000001";  // more digits than a double
            record.view.julia_im = "0.11301";
            const ms::ViewRecord back = ms::view_from_json(ms::view_to_json(record));
            EXPECT_EQ(back.view.formula, f) << ms::formula_name(f);
            EXPECT_EQ(back.view.julia, julia);
            if (julia) {
                EXPECT_EQ(back.view.julia_re, record.view.julia_re);
                EXPECT_EQ(back.view.julia_im, record.view.julia_im);
            }
        }
    }
}

TEST(ViewRecord, FilesFromBeforeTheFormulasReadAsMandelbrot) {
    const ms::ViewRecord old = ms::view_from_json(view_json_with("zoom", "2.0"));  // no "formula", no Julia keys
    EXPECT_EQ(old.view.formula, ms::Formula::Mandelbrot);
    EXPECT_FALSE(old.view.julia);
}

TEST(ViewRecord, BadFormulaOrJuliaParameterIsRefused) {
    std::string json = view_json_with("zoom", "2.0");
    json.insert(json.size() - 1, R"(,"formula":"nope")");
    EXPECT_NE(refusal(json).find("'formula'"), std::string::npos);
    json = view_json_with("zoom", "2.0");
    json.insert(json.size() - 1, R"(,"formula":"tricorn","julia_re":"1")");  // julia_im missing
    EXPECT_NE(refusal(json), "");
    json = view_json_with("zoom", "2.0");
    json.insert(json.size() - 1, R"(,"julia_re":"1","julia_im":"0x1")");  // not decimal
    EXPECT_NE(refusal(json).find("Julia"), std::string::npos);
}
