// panel_cnn_layout.cpp: the CNN panel's layout maths and colours (see panel_cnn.h), apart from
// the drawing so that tests/demos/test_render_cnn_panel.cpp checks them without an ImGui context.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "render/demos/panel_cnn.h"

namespace ms {

const char* const kCnnShortClassNames[kCnnClasses] = {
    "T-shirt", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Boot",
};

CnnGridPage cnn_grid_page(int shown, int page, int per_page) {
    CnnGridPage p;
    per_page = std::max(1, per_page);
    p.pages = std::max(1, (std::max(0, shown) + per_page - 1) / per_page);
    p.page = std::clamp(page, 0, p.pages - 1);
    p.first = p.page * per_page;
    p.count = std::clamp(shown - p.first, 0, per_page);
    return p;
}

int cnn_page_of_image(const std::vector<int>& shown, int image, int per_page) {
    if (image < 0) return -1;
    per_page = std::max(1, per_page);
    if (shown.empty()) return image / per_page;
    auto it = std::lower_bound(shown.begin(), shown.end(), image);
    if (it == shown.end() || *it != image) return -1;
    return int(it - shown.begin()) / per_page;
}

std::vector<int> cnn_misclassified(const std::vector<uint8_t>& labels, const std::vector<uint8_t>& predicted) {
    std::vector<int> wrong;
    const size_t n = std::min(labels.size(), predicted.size());
    for (size_t i = 0; i < n; ++i)
        if (labels[i] != predicted[i]) wrong.push_back(int(i));
    return wrong;
}

std::array<int, kCnnClasses> cnn_classes_by_probability(const float* probabilities) {
    std::array<int, kCnnClasses> order;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return probabilities[a] > probabilities[b]; });
    return order;
}

std::vector<int> cnn_sweep_batches(int also, int max_batch) {
    max_batch = std::max(1, max_batch);
    std::vector<int> batches;
    for (int b = 1; b < max_batch; b *= 4) batches.push_back(b);
    batches.push_back(max_batch);
    if (also >= 1) batches.push_back(std::min(also, max_batch));
    std::sort(batches.begin(), batches.end());
    batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
    return batches;
}

int cnn_sweep_images(int batch, int available) {
    long wanted = std::max(8L * std::max(1, batch), 512L);
    return int(std::min<long>(wanted, std::max(0, available)));
}

double cnn_speedup(const std::optional<CnnEvalResult>& cpu, const std::optional<CnnEvalResult>& cuda) {
    if (!cpu || !cuda || cpu->images_per_second <= 0.0 || cuda->images_per_second <= 0.0) return 0.0;
    return cuda->images_per_second / cpu->images_per_second;
}

ImU32 cnn_heat_colour(float t) {
    // A few stops of matplotlib's "inferno", interpolated linearly in RGB.
    static constexpr float stops[][3] = {
        {0, 0, 4}, {87, 16, 110}, {188, 55, 84}, {249, 142, 9}, {252, 255, 164},
    };
    constexpr int last = int(std::size(stops)) - 1;
    if (!(t > 0.0f)) t = 0.0f;  // NaN too
    t = std::min(t, 1.0f) * last;
    const int i = std::min(int(t), last - 1);
    const float f = t - i;
    auto mix = [&](int c) { return int(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]))); };
    return IM_COL32(mix(0), mix(1), mix(2), 255);
}

ImU32 cnn_confusion_colour(int count, int row_total, bool diagonal) {
    const float fraction = row_total > 0 ? std::clamp(float(count) / row_total, 0.0f, 1.0f) : 0.0f;
    // Off the diagonal a few percent already matter (a 5% confusion is a lot): stretch them,
    // square-root-like, so 1% is visible and 20% is bright.
    const float strength = diagonal ? fraction : std::min(1.0f, std::sqrt(fraction / 0.25f));
    const int base = 28;  // the empty cell: a little lighter than the window
    auto channel = [&](int full) { return base + int(std::lround(strength * (full - base))); };
    return diagonal ? IM_COL32(channel(40), channel(150), channel(70), 255)
                    : IM_COL32(channel(200), channel(45), channel(45), 255);
}

}  // namespace ms
