#version 330 core
// fullscreen.frag: shows the frame texture, moved and scaled onto the window.
// The last finished frame may belong to a view the user has since dragged or zoomed away
// from (render/view_math.h, FrameMapping): window pixel p shows frame pixel p * scale + offset,
// both in image pixels with y down; where that falls outside the frame, the background shows.
// Row 0 of the texture is the image's top row. With scale 1 and offset 0 every window pixel
// samples its own texel's centre, so the picture is shown exactly as computed.
in vec2 uv;
out vec4 colour;
uniform sampler2D frame;
uniform vec2 window_size;    // framebuffer pixels
uniform vec2 frame_size;     // texture pixels
uniform float frame_scale;
uniform vec2 frame_offset;   // texture pixels
uniform vec3 background;
void main() {
    vec2 window_pixel = vec2(uv.x, 1.0 - uv.y) * window_size;
    vec2 t = (window_pixel * frame_scale + frame_offset) / frame_size;
    if (any(lessThan(t, vec2(0.0))) || any(greaterThan(t, vec2(1.0))))
        colour = vec4(background, 1.0);
    else
        colour = vec4(texture(frame, t).rgb, 1.0);
}
