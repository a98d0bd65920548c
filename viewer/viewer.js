// crowdik_demo --view: plays the crowd's run in the page the demo wrote.
// The data (docs/viewer.md) is per frame and character: the animated
// pelvis, the pelvis drop, and per leg the animated hip (from the pelvis),
// knee, ankle, heel and toe (world), the solved knee, ankle, heel and toe
// (from the animated ones), the IK weight and the foot's state. Bones are drawn as instanced thin cylinders, one draw call
// per kind, their matrices written straight into the instance buffer.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const meta = JSON.parse(document.getElementById('crowdik-meta').textContent);
const S = meta.slots; // numbers per character and frame
const SIDE = 4, SIDE_SLOTS = 29, SOLVED = 15, WEIGHT = 27, STATE = 28;
const PLANTED = 1, LOCKED = 2;
const M = meta.quantumMm / 1000; // metres per stored step
const ESCAPE = meta.escape, CLAMP = meta.contextClamp, RESET = meta.contextReset;

// ------------------------------------------------------------ decoding

function base64(id) {
  const s = document.getElementById(id).textContent.trim();
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
  const bin = atob(s), out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
  return out;
}

// Rice codes with an adaptive parameter, as tools/demo/view.c writes them
// (most significant bit first), read a byte's worth of bits at a time.
class RiceReader {
  constructor(bytes) { this.bytes = bytes; this.pos = 0; }
  bits(n) {
    let v = 0;
    while (n > 0) {
      const p = this.pos, avail = 8 - (p & 7), take = Math.min(avail, n);
      v = v * 2 ** take + ((this.bytes[p >> 3] >> (avail - take)) & ((1 << take) - 1));
      this.pos += take;
      n -= take;
    }
    return v;
  }
  // one-bits up to max; the zero that ends fewer than max is read too
  ones(max) {
    let q = 0;
    for (;;) {
      const p = this.pos, avail = 8 - (p & 7);
      const zeros = ~this.bytes[p >> 3] & ((1 << avail) - 1); // the byte's unread bits, 1 where a 0 is
      const run = zeros ? avail - 32 + Math.clz32(zeros) : avail;
      if (q + run >= max) { this.pos += max - q; return max; }
      q += run;
      this.pos += zeros ? run + 1 : run;
      if (zeros) return q;
    }
  }
  // ctx: [sum, count] pairs (integers below 2^26); returns the signed residual
  next(ctx, i) {
    const sum = ctx[2 * i], count = ctx[2 * i + 1];
    // the least k with count * 2^k >= sum, at most 24
    const m = Math.ceil(sum / count);
    const k = m <= 1 ? 0 : Math.min(24, 32 - Math.clz32(m - 1));
    const q = this.ones(ESCAPE);
    const z = q === ESCAPE ? this.bits(this.bits(5) + 1) : q * (1 << k) + this.bits(k);
    ctx[2 * i] = sum + Math.min(z, CLAMP);
    if (++ctx[2 * i + 1] === RESET) {
      ctx[2 * i] = ctx[2 * i] >>> 1;
      ctx[2 * i + 1] = ctx[2 * i + 1] >>> 1;
    }
    return z % 2 ? -(z + 1) / 2 : z / 2;
  }
}

// A decoder out of step with the writer ends anywhere but in the last byte.
function consumed(r, what) {
  if (Math.ceil(r.pos / 8) !== r.bytes.length)
    console.error(`crowdik view: the ${what} data decoded to bit ${r.pos} of ${8 * r.bytes.length}`);
}

function contexts(n, start) {
  const c = new Float64Array(2 * n);
  for (let i = 0; i < n; ++i) { c[2 * i] = start; c[2 * i + 1] = 1; }
  return c;
}

// Every frame's numbers, frame-major: data[(f * characters + c) * S + i],
// as view_frame (tools/demo/view.c) predicts and codes them.
function decodeMotion() {
  const C = meta.characters, F = meta.frames, r = new RiceReader(base64('crowdik-motion'));
  const data = new Int32Array(F * C * S);
  const first = [contexts(S, meta.contextStart[0]), contexts(S, meta.contextStart[1])];
  const later = contexts(C * S, meta.contextStart[2]);
  const res = new Float64Array(S);
  // per slot: what its residual is coded against (heel and toe: the ankle's),
  // whether the first frame predicts it by the pelvis (-1: by 0), and whether
  // the last frame alone predicts it (the state bits)
  const base = new Int32Array(S).fill(-1), fromPelvis = new Int32Array(S).fill(-1), step = new Uint8Array(S);
  for (let i = SIDE; i < S; ++i) {
    const k = (i - SIDE) % SIDE_SLOTS;
    if (k >= 9 && k < 15) base[i] = i - Math.floor((k - 6) / 3) * 3;
    if (k >= SOLVED + 6 && k < SOLVED + 12) base[i] = i - Math.floor((k - SOLVED - 3) / 3) * 3;
    if (k >= 3 && k < SOLVED) fromPelvis[i] = k % 3;
    step[i] = k === STATE ? 1 : 0;
  }
  for (let f = 0; f < F; ++f)
    for (let c = 0; c < C; ++c) {
      const o = (f * C + c) * S, p1 = o - C * S, p2 = p1 - C * S;
      const ctx = f < 2 ? first[f] : later, at = f < 2 ? 0 : c * S;
      for (let i = 0; i < S; ++i) {
        const predicted = f === 0 ? (fromPelvis[i] >= 0 ? data[o + fromPelvis[i]] : 0)
          : f === 1 || step[i] ? data[p1 + i] : 2 * data[p1 + i] - data[p2 + i];
        res[i] = r.next(ctx, at + i) + (base[i] >= 0 ? res[base[i]] : 0);
        data[o + i] = predicted + res[i];
      }
    }
  consumed(r, 'motion');
  return data;
}

function decodeTerrain() {
  const { nx, nz } = meta.terrain, r = new RiceReader(base64('crowdik-terrain'));
  const h = new Int32Array(nx * nz), ctx = contexts(1, meta.contextStart[3]);
  for (let z = 0; z < nz; ++z)
    for (let x = 0; x < nx; ++x) {
      const i = z * nx + x;
      const p = z === 0 ? (x ? h[i - 1] : 0) : x ? h[i - 1] + h[i - nx] - h[i - nx - 1] : h[i - nx];
      h[i] = p + r.next(ctx, 0);
    }
  consumed(r, 'terrain');
  return h;
}

const t0 = performance.now();
const motion = decodeMotion();
const heights = decodeTerrain();
const decodeMs = performance.now() - t0;

// ------------------------------------------------------------ scene

const host = document.getElementById('view');
// multisampling costs a software renderer more than the crowd's lines do
const renderer = new THREE.WebGLRenderer({ antialias: meta.characters <= 200 });
renderer.setPixelRatio(window.devicePixelRatio);
host.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe6ec);
scene.add(new THREE.HemisphereLight(0xffffff, 0x806a50, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(0.4, 1, 0.3);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.05, 2000);
const controls = new OrbitControls(camera, renderer.domElement);

// The ground in tiles of TILE x TILE cells, each a THREE.LOD that draws every
// 1st, 2nd, 4th or 8th sample by its distance from the camera: the ground
// fills the screen, and a software renderer pays for its every triangle.
const TILE = 32, LOD_STEPS = [[1, 0], [2, 12], [4, 25], [8, 50]]; // [sample step, from metres]
function terrain() {
  const { x0, z0, spacing, nx, nz } = meta.terrain;
  const light = new THREE.Color(0xece4d4), dark = new THREE.Color(0xd6ccb8);
  const sunDir = new THREE.Vector3(0.4, 1, 0.3).normalize(), normal = new THREE.Vector3();
  const h = (x, z) => heights[Math.min(nz - 1, Math.max(0, z)) * nx + Math.min(nx - 1, Math.max(0, x))] * M;
  const group = new THREE.Group();
  for (let tz = 0; tz < nz - 1; tz += TILE)
    for (let tx = 0; tx < nx - 1; tx += TILE) {
      const w = Math.min(TILE, nx - 1 - tx) + 1, d = Math.min(TILE, nz - 1 - tz) + 1;
      const pos = new Float32Array(w * d * 3), col = new Float32Array(w * d * 3);
      // positions from the tile's centre, whose distance from the camera picks the level
      const centre = new THREE.Vector3(x0 + (tx + w / 2) * spacing, h(tx + (w >> 1), tz + (d >> 1)),
        z0 + (tz + d / 2) * spacing);
      for (let z = 0; z < d; ++z)
        for (let x = 0; x < w; ++x) {
          const gx = tx + x, gz = tz + z, i = z * w + x, wx = x0 + gx * spacing, wz = z0 + gz * spacing;
          pos.set([wx - centre.x, h(gx, gz) - centre.y, wz - centre.z], 3 * i);
          // the light baked into the colour (unlit material: cheaper per pixel), on a 1 m checker
          normal.set(h(gx - 1, gz) - h(gx + 1, gz), 2 * spacing, h(gx, gz - 1) - h(gx, gz + 1)).normalize();
          const shade = 0.55 + 0.45 * Math.max(0, normal.dot(sunDir));
          const c = (Math.floor(wx) + Math.floor(wz)) & 1 ? light : dark;
          col.set([c.r * shade, c.g * shade, c.b * shade], 3 * i);
        }
      const position = new THREE.BufferAttribute(pos, 3), colour = new THREE.BufferAttribute(col, 3);
      const lod = new THREE.LOD();
      for (const [step, from] of LOD_STEPS) {
        const index = [];
        for (let z = 0; z + 1 < d; z += step)
          for (let x = 0; x + 1 < w; x += step) {
            const x1 = Math.min(x + step, w - 1), z1 = Math.min(z + step, d - 1);
            const a = z * w + x, b = z * w + x1, c = z1 * w + x, e = z1 * w + x1;
            index.push(a, c, b, b, c, e);
          }
        const g = new THREE.BufferGeometry();
        g.setAttribute('position', position);
        g.setAttribute('color', colour);
        g.setIndex(index);
        g.computeBoundingSphere();
        lod.addLevel(new THREE.Mesh(g, terrainMaterial), from);
      }
      lod.position.copy(centre);
      group.add(lod);
    }
  return group;
}
const terrainMaterial = new THREE.MeshBasicMaterial({ vertexColors: true });
scene.add(terrain());

// Bones, two ways. 'solid': instanced thin cylinders (a unit cylinder from
// y = 0 to 1, stretched between two points per instance) and spheres, lit;
// 'lines': one LineSegments per kind with a per-frame position buffer and
// points for the joints, a few times cheaper for a software renderer, the
// default for large crowds (docs/viewer.md has the frame rates).
const C = meta.characters;
const style = new URLSearchParams(location.search).get('bones') || (C > 200 ? 'lines' : 'solid');
const cylinder = new THREE.CylinderGeometry(1, 1, 1, 6, 1, true).translate(0, 0.5, 0);
const ball = new THREE.IcosahedronGeometry(1, 1);

function bones(count, opts, joint = false) {
  let object, put, colour, arrays;
  if (style === 'solid') {
    const material = opts.color === undefined ? new THREE.MeshLambertMaterial() : new THREE.MeshBasicMaterial(opts);
    object = new THREE.InstancedMesh(joint ? ball : cylinder, material, count);
    object.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    const m = object.instanceMatrix.array;
    put = joint ? (i, p, r) => sphere(m, i, p, r) : (i, a, b, r) => cylinderMatrix(m, i, a, b, r);
    if (opts.color === undefined) object.setColorAt(0, new THREE.Color());
    colour = (i, c) => object.instanceColor && object.instanceColor.array.set([c.r, c.g, c.b], 3 * i);
    arrays = () => [object.instanceMatrix, object.instanceColor].filter(Boolean);
  } else {
    const n = joint ? 1 : 2, pos = new Float32Array(3 * n * count), col = new Float32Array(3 * n * count);
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3).setUsage(THREE.DynamicDrawUsage));
    g.setAttribute('color', new THREE.BufferAttribute(col, 3));
    const c0 = new THREE.Color(opts.color === undefined ? 0xffffff : opts.color);
    for (let i = 0; i < n * count; ++i) col.set([c0.r, c0.g, c0.b], 3 * i);
    object = joint ? new THREE.Points(g, new THREE.PointsMaterial({ size: 5, sizeAttenuation: false, vertexColors: true }))
      : new THREE.LineSegments(g, new THREE.LineBasicMaterial({ ...opts, color: 0xffffff, vertexColors: true }));
    put = joint ? (i, p) => pos.set(p, 3 * i) : (i, a, b) => { pos.set(a, 6 * i); pos.set(b, 6 * i + 3); };
    colour = (i, c) => { for (let k = 0; k < n; ++k) col.set([c.r, c.g, c.b], 3 * (n * i + k)); };
    arrays = () => [g.attributes.position, g.attributes.color];
  }
  object.frustumCulled = false; // the bones move every frame; the bounds would be stale
  scene.add(object);
  return { object, put, colour, update: () => { for (const a of arrays()) a.needsUpdate = true; } };
}

const animBones = bones(12 * C, { color: 0x9aa0a6, transparent: true, opacity: 0.55 }); // pelvis-hip .. toe-ankle
const solvedLegs = bones(6 * C, {}); // pelvis-hip, thigh, shin per side
const solvedFeet = bones(6 * C, {}); // ankle-heel, heel-toe, toe-ankle per side
const joints = bones(3 * C, {}, true); // solved pelvis, knees
const sideColour = [new THREE.Color(0x2050d0), new THREE.Color(0xd03020)];
const pelvisColour = new THREE.Color(0x202020);
for (let c = 0; c < C; ++c) {
  joints.colour(3 * c, pelvisColour);
  for (let s = 0; s < 2; ++s) {
    for (let k = 0; k < 3; ++k) solvedLegs.colour(6 * c + 3 * s + k, sideColour[s]);
    joints.colour(3 * c + 1 + s, sideColour[s]);
  }
}
const stateColour = {
  swing: new THREE.Color(0x8a96a8), easing: new THREE.Color(0xf0a020),
  planted: new THREE.Color(0x20b040), locked: new THREE.Color(0xa020c0),
};

// Column-major matrix of a cylinder of radius r from a to b (arrays of 3).
function cylinderMatrix(array, index, a, b, r) {
  const dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  const len = Math.hypot(dx, dy, dz) || 1e-9;
  // u: perpendicular to the bone, from whichever axis is far from it
  let ux, uy, uz;
  if (Math.abs(dy) < 0.9 * len) { ux = dz; uy = 0; uz = -dx; } else { ux = 0; uy = -dz; uz = dy; }
  const ul = Math.hypot(ux, uy, uz) || 1;
  ux /= ul; uy /= ul; uz /= ul;
  // w = u x d / |d|: (u, d, w) right-handed, or the faces would turn inside out
  const wx = (uy * dz - uz * dy) / len, wy = (uz * dx - ux * dz) / len, wz = (ux * dy - uy * dx) / len;
  const m = array, o = 16 * index;
  m[o] = ux * r; m[o + 1] = uy * r; m[o + 2] = uz * r; m[o + 3] = 0;
  m[o + 4] = dx; m[o + 5] = dy; m[o + 6] = dz; m[o + 7] = 0;
  m[o + 8] = wx * r; m[o + 9] = wy * r; m[o + 10] = wz * r; m[o + 11] = 0;
  m[o + 12] = a[0]; m[o + 13] = a[1]; m[o + 14] = a[2]; m[o + 15] = 1;
}

function sphere(array, index, p, r) {
  const o = 16 * index;
  array.fill(0, o, o + 16);
  array[o] = array[o + 5] = array[o + 10] = r;
  array[o + 12] = p[0]; array[o + 13] = p[1]; array[o + 14] = p[2]; array[o + 15] = 1;
}

// World points of character c at frame f, metres.
const P = Array.from({ length: 24 }, () => [0, 0, 0]);
function characterPoints(f, c) {
  const o = (f * C + c) * S;
  const px = motion[o] * M, py = motion[o + 1] * M, pz = motion[o + 2] * M, drop = motion[o + 3] * M;
  P[0][0] = px; P[0][1] = py; P[0][2] = pz; // animated pelvis
  P[1][0] = px; P[1][1] = py - drop; P[1][2] = pz; // solved pelvis
  for (let s = 0; s < 2; ++s) {
    const b = o + SIDE + SIDE_SLOTS * s, q = 2 + 11 * s;
    for (let k = 0; k < 5; ++k) { // animated hip (from the pelvis) .. toe (world): q .. q + 4
      P[q + k][0] = (k ? 0 : px) + motion[b + 3 * k] * M;
      P[q + k][1] = (k ? 0 : py) + motion[b + 3 * k + 1] * M;
      P[q + k][2] = (k ? 0 : pz) + motion[b + 3 * k + 2] * M;
    }
    P[q + 5][0] = P[q][0]; P[q + 5][1] = P[q][1] - drop; P[q + 5][2] = P[q][2]; // solved hip
    for (let k = 0; k < 4; ++k) { // solved knee .. toe (from the animated ones): q + 6 .. q + 9
      P[q + 6 + k][0] = P[q + 1 + k][0] + motion[b + SOLVED + 3 * k] * M;
      P[q + 6 + k][1] = P[q + 1 + k][1] + motion[b + SOLVED + 3 * k + 1] * M;
      P[q + 6 + k][2] = P[q + 1 + k][2] + motion[b + SOLVED + 3 * k + 2] * M;
    }
  }
}

function footColour(weight, state) {
  if (state & LOCKED) return stateColour.locked;
  if (state & PLANTED) return stateColour.planted;
  return weight > 0 ? stateColour.easing : stateColour.swing;
}

function showFrame(f) {
  const anim = animBones.put, legs = solvedLegs.put, feet = solvedFeet.put;
  for (let c = 0; c < C; ++c) {
    characterPoints(f, c);
    joints.put(3 * c, P[1], 0.04);
    for (let s = 0; s < 2; ++s) {
      const q = 2 + 11 * s, i6 = 6 * c + 3 * s, i12 = 12 * c + 6 * s;
      const [hip, knee, ankle, heel, toe, sHip, sKnee, sAnkle, sHeel, sToe] = P.slice(q, q + 10);
      anim(i12, P[0], hip, 0.008);
      anim(i12 + 1, hip, knee, 0.008);
      anim(i12 + 2, knee, ankle, 0.008);
      anim(i12 + 3, ankle, heel, 0.006);
      anim(i12 + 4, heel, toe, 0.006);
      anim(i12 + 5, toe, ankle, 0.006);
      legs(i6, P[1], sHip, 0.014);
      legs(i6 + 1, sHip, sKnee, 0.016);
      legs(i6 + 2, sKnee, sAnkle, 0.014);
      feet(i6, sAnkle, sHeel, 0.011);
      feet(i6 + 1, sHeel, sToe, 0.011);
      feet(i6 + 2, sToe, sAnkle, 0.011);
      joints.put(3 * c + 1 + s, sKnee, 0.022);
      const b = (f * C + c) * S + SIDE + SIDE_SLOTS * s;
      const col = footColour(motion[b + WEIGHT], motion[b + STATE]);
      for (let k = 0; k < 3; ++k) solvedFeet.colour(i6 + k, col);
    }
  }
  for (const b of [animBones, solvedLegs, solvedFeet, joints]) b.update();
}

// ------------------------------------------------------------ playback and camera

const ui = Object.fromEntries(['play', 'back', 'step', 'scrub', 'clock', 'speed', 'mode', 'follow', 'stats',
  'scene', 'report'].map((id) => [id, document.getElementById(id)]));
const state = { playing: true, time: 0, frame: -1, speed: 1, follow: -1, last: null };
ui.scrub.max = meta.frames - 1;
ui.scene.textContent = meta.scene;
ui.report.textContent = meta.report;

function pelvisAt(f, c) {
  const o = (f * C + c) * S;
  return new THREE.Vector3(motion[o] * M, (motion[o + 1] - motion[o + 3]) * M, motion[o + 2] * M);
}

// The camera on character c's pelvis from `distance` metres; with side 0
// (left) or 1 (right), on that solved foot's ankle from its side, a little
// above it (square to the heel-to-toe line: the sole against the ground).
function lookAt(c, distance, side) {
  const f = Math.max(state.frame, 0);
  if (side === 0 || side === 1) {
    characterPoints(f, c);
    const q = 2 + 11 * side, ankle = P[q + 7], heel = P[q + 8], toe = P[q + 9];
    let lx = toe[2] - heel[2], lz = heel[0] - toe[0];
    const l = Math.hypot(lx, lz) || 1;
    lx /= l; lz /= l;
    const s = side ? -1 : 1; // from the outside of the foot
    controls.target.set(ankle[0], ankle[1], ankle[2]);
    camera.position.set(ankle[0] + s * lx * distance, ankle[1] + 0.2 * distance, ankle[2] + s * lz * distance);
  } else {
    const p = pelvisAt(f, c);
    controls.target.copy(p);
    camera.position.set(p.x + 0.55 * distance, p.y + 0.35 * distance, p.z + 0.75 * distance);
  }
  controls.update();
}

function setMode(mode) {
  ui.mode.value = mode;
  animBones.object.visible = mode !== 'solved';
  solvedLegs.object.visible = solvedFeet.object.visible = joints.object.visible = mode !== 'anim';
}

function setFrame(f) {
  const F = meta.frames;
  f = ((f % F) + F) % F;
  if (state.follow >= 0 && state.frame >= 0) { // keep the camera's offset from the followed character
    const d = pelvisAt(f, state.follow).sub(pelvisAt(state.frame, state.follow));
    camera.position.add(d);
    controls.target.add(d);
  }
  state.frame = f;
  showFrame(f);
  ui.scrub.value = f;
  ui.clock.textContent = `${(f / meta.fps).toFixed(3)} s  frame ${f}`;
}

function pause(on) { state.playing = !on; ui.play.textContent = on ? 'play' : 'pause'; }

ui.play.onclick = () => pause(state.playing);
ui.back.onclick = () => { pause(true); setFrame(state.frame - 1); };
ui.step.onclick = () => { pause(true); setFrame(state.frame + 1); };
ui.scrub.oninput = () => { pause(true); state.time = ui.scrub.value / meta.fps; setFrame(+ui.scrub.value); };
ui.speed.onchange = () => { state.speed = +ui.speed.value; };
ui.mode.onchange = () => setMode(ui.mode.value);
ui.follow.onchange = () => {
  state.follow = Math.min(C - 1, Math.floor(+ui.follow.value));
  if (state.follow >= 0) lookAt(state.follow, 4);
};
window.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT' && e.target.type === 'number') return;
  if (e.key === ' ') { pause(state.playing); e.preventDefault(); }
  if (e.key === ',') ui.back.onclick();
  if (e.key === '.') ui.step.onclick();
});

function resize() {
  const w = host.clientWidth, h = host.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// The page's frame timer: frames drawn over the last second of wall time.
// Below 24 fps the canvas draws fewer pixels (down to half the width), above
// 50 more again: a software renderer's cost is mostly the ground's pixels.
const timer = { stamps: [], fps: 0, updateMs: 0, scale: 1, checked: 0 };
function adaptScale(now) {
  if (now - timer.checked < 1500 || timer.stamps.length < 2) return;
  timer.checked = now;
  const scale = timer.fps < 24 ? Math.max(0.5, timer.scale - 0.125) : timer.fps > 50 ? Math.min(1, timer.scale + 0.125)
    : timer.scale;
  if (scale !== timer.scale) {
    timer.scale = scale;
    renderer.setPixelRatio(window.devicePixelRatio * scale);
    resize();
  }
}
function statsTable() {
  const mb = (n) => (n / 1e6).toFixed(2) + ' MB';
  const rows = [
    ['characters', C], ['frames', `${meta.frames} (${(meta.frames / meta.fps).toFixed(2)} s at ${meta.fps} Hz)`],
    ['motion data', `${mb(meta.motionBytes)} (${(8 * meta.motionBytes / (C * meta.frames)).toFixed(1)} bits per character-frame)`],
    ['terrain data', `${mb(meta.terrainBytes)}, ${meta.terrain.nx} x ${meta.terrain.nz} at ${(100 * meta.terrain.spacing).toFixed(1)} cm`],
    ['decoded in', `${decodeMs.toFixed(0)} ms`],
    ['frame rate', `${timer.fps.toFixed(1)} fps (update ${timer.updateMs.toFixed(1)} ms, pixels x${timer.scale})`],
  ];
  ui.stats.innerHTML = rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('');
}

function tick(now) {
  const s = timer.stamps;
  s.push(now);
  while (s.length > 2 && now - s[0] > 1000) s.shift();
  timer.fps = s.length > 1 ? (1000 * (s.length - 1)) / (now - s[0]) : 0;
  if (state.playing) {
    if (state.last !== null) state.time += (Math.min(now - state.last, 100) / 1000) * state.speed;
    const f = Math.floor(state.time * meta.fps) % meta.frames;
    const u0 = performance.now();
    if (f !== state.frame) setFrame(f);
    timer.updateMs = performance.now() - u0;
  }
  state.last = now;
  if (!window.crowdikViewer.fixedScale) adaptScale(now);
  controls.update();
  renderer.render(scene, camera);
  if (now - (timer.shown || 0) > 500) { timer.shown = now; statsTable(); }
  requestAnimationFrame(tick);
}

setMode('both');
setFrame(0);
lookAt(0, 5);
statsTable();
requestAnimationFrame(tick);

// For the headless test and for scripting from the console.
window.crowdikViewer = {
  meta, decodeMs,
  fps: () => timer.fps,
  scale: () => timer.scale,
  fixedScale: false, // true: keep the canvas at full resolution (the test's pictures)
  frame: () => state.frame,
  pause: (on = true) => pause(on),
  setFrame: (f) => { state.time = f / meta.fps; setFrame(f); },
  setMode,
  lookAt: (c, distance, side) => lookAt(c, distance, side),
  follow: (c) => { ui.follow.value = c; ui.follow.onchange(); },
  showCharacters: (on) => {
    if (on) setMode(ui.mode.value);
    else for (const b of [solvedLegs, solvedFeet, animBones, joints]) b.object.visible = false;
  },
  points: (f, c) => { characterPoints(f, c); return P.slice(0, 24).map((p) => p.slice()); },
  three: { THREE, scene, camera, renderer, controls },
  ready: true,
};
