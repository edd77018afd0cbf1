#version 330 core
// fullscreen.frag: shows the frame texture. Row 0 of the texture is the image's top row,
// so v is flipped.
in vec2 uv;
out vec4 color;
uniform sampler2D frame;
void main() {
    color = vec4(texture(frame, vec2(uv.x, 1.0 - uv.y)).rgb, 1.0);
}
