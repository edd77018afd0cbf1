// test_view_record.cpp: the view JSON read from a PNG's tEXt chunk is outside input. Each case
// below is one issue 16 found (UBSan's float-cast-overflow, a path in "palette", a centre the
// window could not parse): view_from_json refuses it with one sentence and no undefined
// behaviour, and the sentence never carries the JSON library's own text.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "compute/fractal/view_record.h"

namespace {

// A valid view's JSON with one field replaced by `value` (raw JSON text).
std::string view_json_with(const std::string& key, const std::string& value) {
    std::string json =
        R"({"center_re":"-0.5","center_im":"0","zoom":2.0,"width":64,"height":36,"iterations":500,)"
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
    // Issue 16, item 7: 3e9 and 1e10 were cast from double to int (undefined behaviour).
    for (const auto& [key, value] : std::initializer_list<std::pair<const char*, const char*>>{
             {"iterations", "3e9"}, {"supersample", "1e10"}, {"width", "1e300"}, {"height", "-1e300"},
             {"iterations", "2.5"}, {"iterations", "4294967297"}, {"width", "18446744073709551615"},
             {"supersample", "5"}, {"supersample", "0"}, {"width", "0"}, {"iterations", "\"700\""},
             {"iterations", "null"}, {"zoom", "\"2\""}, {"center_re", "0.5"}}) {
        const std::string why = refusal(view_json_with(key, value));
        EXPECT_NE(why, "") << key << " = " << value;
        EXPECT_EQ(why.find("json.exception"), std::string::npos) << why;
    }
}

TEST(ViewRecord, OutOfRangeZoomAndNonDecimalCentresAreRefused) {
    // A zoom of 1.7e308 converted inf to int in the navigation maths (issue 16, item 7).
    EXPECT_NE(refusal(view_json_with("zoom", "1.7e308")).find("zoom"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("zoom", "0")), "");
    // render --center=0x1p-1,0 wrote this; the window then hung (issue 16, item 1).
    EXPECT_NE(refusal(view_json_with("center_re", "\"0x1p-1\"")).find("not a decimal number"), std::string::npos);
    EXPECT_NE(refusal(view_json_with("center_im", "\" 0\"")), "");
}

TEST(ViewRecord, PaletteNamesStayInsideThePalettesFolder) {
    // Issue 16, item 10: a PNG's "palette" reached the file system as a path.
    for (const char* name : {"\"../../../etc/passwd\"", "\"/etc/passwd\"", "\"classic/..\"", "\"\"", "\"a b\"",
                             "\"..\"", "\"-x\""})
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
