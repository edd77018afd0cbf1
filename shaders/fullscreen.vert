#version 330 core
// fullscreen.vert: one triangle that covers the viewport; no vertex buffer needed
// (gl_VertexID 0, 1, 2 -> (-1,-1), (3,-1), (-1,3)). uv runs 0..1 over the visible part.
out vec2 uv;
void main() {
    vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
    uv = p;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
