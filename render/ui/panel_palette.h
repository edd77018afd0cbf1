// panel_palette.h: the palette editor, a tab of the right column (panel_layout.h): the gradient's
// stops (position and colour, add, remove), a live preview strip, load and save in the
// assets/palettes format, Kalles Fraktaler's "Colors:" line imported from a .kfr, and colour
// cycling (the view's palette offset turning at a set speed).
//
// draw_palette_editor() edits the state and raises requests; carry_out_palette_editor() does
// the file work and applies an edited palette, outside the panel (panels change nothing
// themselves, panels.h).
#pragma once

#include <string>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"

namespace ms {

struct PaletteEditorState {
    bool open = false;
    bool raise = false;                   // request: bring its tab to the front
    Palette palette;                      // being edited (the main loop loads the view's palette into it)
    std::string loaded_name;              // the palette `palette` was loaded from ("" before the first)
    std::string path = "my-palette.txt";  // load / save
    std::string kfr_path = "location.kfr";
    bool cycling = false;  // colour cycling on
    float cycles_per_second = 0.1f;
    std::string message;  // the last file operation's result
    bool message_is_error = false;
    // Requests raised this frame (cleared by the draw).
    bool edited = false;  // `palette` changed: apply it to the picture
    bool load = false;
    bool save = false;
    bool import_kfr = false;
};

// The "Palette" tab (when open and the column is drawn).
void draw_palette_editor(PaletteEditorState& state, bool in_column);

// Carries out the editor's requests, and keeps it in step with the view: loads the view's
// palette into the editor when the view names another one; applies an edited, loaded or
// imported palette to *table (and names it in view->palette: a loaded or saved file's stem);
// turns view->palette_offset by `seconds` of cycling. Returns true when the picture must be
// redrawn.
bool carry_out_palette_editor(PaletteEditorState& state, View* view, PaletteTable* table, std::string* table_name,
                              double seconds);

}  // namespace ms
