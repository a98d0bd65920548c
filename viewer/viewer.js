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

// ------------------------------------------------------------ decoding

function base64(id) {
  const s = document.getElementById(id).textContent.trim();
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
  const bin = atob(s), out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
  return out;
}

// Rice codes with an adaptive parameter, as tools/demo/view.c writes them.
class RiceReader {
  constructor(bytes) { this.bytes = bytes; this.pos = 0; }
  bit() {
    const p = this.pos++;
    return (this.bytes[p >> 3] >> (7 - (p & 7))) & 1;
  }
  bits(n) {
    let v = 0;
    for (let i = 0; i < n; ++i) v = v * 2 + this.bit();
    return v;
  }
  // ctx: [sum, count] pairs; returns the signed residual
  next(ctx, i) {
    const sum = ctx[2 * i], count = ctx[2 * i + 1];
    let k = 0;
    while (k < 24 && count * 2 ** k < sum) ++k;
    let q = 0;
    while (q < meta.escape && this.bit()) ++q;
    const z = q === meta.escape ? this.bits(this.bits(5) + 1) : q * 2 ** k + this.bits(k);
    ctx[2 * i] = sum + Math.min(z, meta.contextClamp);
    if (++ctx[2 * i + 1] === meta.contextReset) {
      ctx[2 * i] = Math.floor(ctx[2 * i] / 2);
      ctx[2 * i + 1] = Math.floor(ctx[2 * i + 1] / 2);
    }
    return z % 2 ? -(z + 1) / 2 : z / 2;
  }
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
  const side = (i) => (i - SIDE) % SIDE_SLOTS;
  // what the slot's residual is coded against: heel and toe against the ankle's
  const base = new Int32Array(S).fill(-1);
  for (let i = SIDE; i < S; ++i) {
    const k = side(i);
    if (k >= 9 && k < 15) base[i] = i - Math.floor((k - 6) / 3) * 3;
    if (k >= SOLVED + 6 && k < SOLVED + 12) base[i] = i - Math.floor((k - SOLVED - 3) / 3) * 3;
  }
  for (let f = 0; f < F; ++f)
    for (let c = 0; c < C; ++c) {
      const o = (f * C + c) * S, p1 = o - C * S, p2 = p1 - C * S;
      for (let i = 0; i < S; ++i) {
        const k = side(i), world = i >= SIDE && k >= 3 && k < SOLVED;
        const predicted = f === 0 ? (world ? data[o + (k % 3)] : 0)
          : f === 1 || (i >= SIDE && k === STATE) ? data[p1 + i] : 2 * data[p1 + i] - data[p2 + i];
        res[i] = (f < 2 ? r.next(first[f], i) : r.next(later, c * S + i)) + (base[i] >= 0 ? res[base[i]] : 0);
        data[o + i] = predicted + res[i];
      }
    }
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
  return h;
}

const t0 = performance.now();
const motion = decodeMotion();
const heights = decodeTerrain();
const decodeMs = performance.now() - t0;

// ------------------------------------------------------------ scene

const host = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({ antialias: true });
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

function terrainMesh() {
  const { x0, z0, spacing, nx, nz } = meta.terrain;
  const pos = new Float32Array(nx * nz * 3), col = new Float32Array(nx * nz * 3);
  const light = new THREE.Color(0xece4d4), dark = new THREE.Color(0xd6ccb8);
  for (let z = 0; z < nz; ++z)
    for (let x = 0; x < nx; ++x) {
      const i = z * nx + x, wx = x0 + x * spacing, wz = z0 + z * spacing;
      pos.set([wx, heights[i] * M, wz], 3 * i);
      // a 1 m checker, to see a foot slide
      const c = (Math.floor(wx) + Math.floor(wz)) & 1 ? light : dark;
      col.set([c.r, c.g, c.b], 3 * i);
    }
  const index = new Uint32Array((nx - 1) * (nz - 1) * 6);
  let k = 0;
  for (let z = 0; z + 1 < nz; ++z)
    for (let x = 0; x + 1 < nx; ++x) {
      const a = z * nx + x, b = a + 1, c = a + nx, d = c + 1;
      index.set([a, c, b, b, c, d], k);
      k += 6;
    }
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
  g.setAttribute('color', new THREE.BufferAttribute(col, 3));
  g.setIndex(new THREE.BufferAttribute(index, 1));
  g.computeVertexNormals();
  return new THREE.Mesh(g, new THREE.MeshLambertMaterial({ vertexColors: true }));
}
scene.add(terrainMesh());

// A unit cylinder from y = 0 to y = 1, stretched between two points per instance.
const bone = new THREE.CylinderGeometry(1, 1, 1, 6, 1, true).translate(0, 0.5, 0);
const ball = new THREE.IcosahedronGeometry(1, 1);

function instanced(geometry, material, count) {
  const m = new THREE.InstancedMesh(geometry, material, count);
  m.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
  m.frustumCulled = false; // the instances move every frame; the bounds would be stale
  return m;
}
const C = meta.characters;
const solvedLegs = instanced(bone, new THREE.MeshLambertMaterial(), 6 * C); // pelvis-hip, thigh, shin per side
const solvedFeet = instanced(bone, new THREE.MeshLambertMaterial(), 6 * C); // ankle-heel-toe-ankle per side
const animBones = instanced(bone, new THREE.MeshBasicMaterial({ color: 0x9aa0a6, transparent: true, opacity: 0.55 }),
  12 * C);
const joints = instanced(ball, new THREE.MeshLambertMaterial(), 3 * C); // solved pelvis, knees
const sideColour = [new THREE.Color(0x2050d0), new THREE.Color(0xd03020)];
const pelvisColour = new THREE.Color(0x202020);
for (let c = 0; c < C; ++c)
  for (let s = 0; s < 2; ++s) {
    for (let k = 0; k < 3; ++k) solvedLegs.setColorAt(6 * c + 3 * s + k, sideColour[s]);
    joints.setColorAt(3 * c, pelvisColour);
    joints.setColorAt(3 * c + 1 + s, sideColour[s]);
    for (let k = 0; k < 3; ++k) solvedFeet.setColorAt(6 * c + 3 * s + k, sideColour[s]);
  }
scene.add(animBones, solvedLegs, solvedFeet, joints);
const stateColour = {
  swing: new THREE.Color(0x8a96a8), easing: new THREE.Color(0xf0a020),
  planted: new THREE.Color(0x20b040), locked: new THREE.Color(0xa020c0),
};

// Column-major matrix of a cylinder of radius r from a to b (arrays of 3).
function segment(array, index, a, b, r) {
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
  const legs = solvedLegs.instanceMatrix.array, feet = solvedFeet.instanceMatrix.array;
  const anim = animBones.instanceMatrix.array, jm = joints.instanceMatrix.array;
  const fc = solvedFeet.instanceColor.array;
  for (let c = 0; c < C; ++c) {
    characterPoints(f, c);
    sphere(jm, 3 * c, P[1], 0.04);
    for (let s = 0; s < 2; ++s) {
      const q = 2 + 11 * s, i6 = 6 * c + 3 * s, i12 = 12 * c + 6 * s;
      const [hip, knee, ankle, heel, toe, sHip, sKnee, sAnkle, sHeel, sToe] = P.slice(q, q + 10);
      segment(anim, i12, P[0], hip, 0.008);
      segment(anim, i12 + 1, hip, knee, 0.008);
      segment(anim, i12 + 2, knee, ankle, 0.008);
      segment(anim, i12 + 3, ankle, heel, 0.006);
      segment(anim, i12 + 4, heel, toe, 0.006);
      segment(anim, i12 + 5, toe, ankle, 0.006);
      segment(legs, i6, P[1], sHip, 0.014);
      segment(legs, i6 + 1, sHip, sKnee, 0.016);
      segment(legs, i6 + 2, sKnee, sAnkle, 0.014);
      segment(feet, i6, sAnkle, sHeel, 0.011);
      segment(feet, i6 + 1, sHeel, sToe, 0.011);
      segment(feet, i6 + 2, sToe, sAnkle, 0.011);
      sphere(jm, 3 * c + 1 + s, sKnee, 0.022);
      const b = (f * C + c) * S + SIDE + SIDE_SLOTS * s;
      const col = footColour(motion[b + WEIGHT], motion[b + STATE]);
      for (let k = 0; k < 3; ++k) fc.set([col.r, col.g, col.b], 3 * (i6 + k));
    }
  }
  for (const m of [solvedLegs, solvedFeet, animBones, joints]) m.instanceMatrix.needsUpdate = true;
  solvedFeet.instanceColor.needsUpdate = true;
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

function lookAt(c, distance) {
  const p = pelvisAt(Math.max(state.frame, 0), c);
  controls.target.copy(p);
  camera.position.set(p.x + 0.55 * distance, p.y + 0.35 * distance, p.z + 0.75 * distance);
  controls.update();
}

function setMode(mode) {
  ui.mode.value = mode;
  animBones.visible = mode !== 'solved';
  solvedLegs.visible = solvedFeet.visible = joints.visible = mode !== 'anim';
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
const timer = { stamps: [], fps: 0, updateMs: 0 };
function statsTable() {
  const mb = (n) => (n / 1e6).toFixed(2) + ' MB';
  const rows = [
    ['characters', C], ['frames', `${meta.frames} (${(meta.frames / meta.fps).toFixed(2)} s at ${meta.fps} Hz)`],
    ['motion data', `${mb(meta.motionBytes)} (${(8 * meta.motionBytes / (C * meta.frames)).toFixed(1)} bits per character-frame)`],
    ['terrain data', `${mb(meta.terrainBytes)}, ${meta.terrain.nx} x ${meta.terrain.nz} at ${(100 * meta.terrain.spacing).toFixed(1)} cm`],
    ['decoded in', `${decodeMs.toFixed(0)} ms`],
    ['frame rate', `${timer.fps.toFixed(1)} fps (update ${timer.updateMs.toFixed(1)} ms)`],
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
  controls.update();
  renderer.render(scene, camera);
  if (s.length % 30 === 0) statsTable();
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
  frame: () => state.frame,
  pause: (on = true) => pause(on),
  setFrame: (f) => { state.time = f / meta.fps; setFrame(f); },
  setMode,
  lookAt: (c, distance) => lookAt(c, distance),
  follow: (c) => { ui.follow.value = c; ui.follow.onchange(); },
  showCharacters: (on) => { for (const m of [solvedLegs, solvedFeet, animBones, joints]) m.visible = on; },
  points: (f, c) => { characterPoints(f, c); return P.slice(0, 24).map((p) => p.slice()); },
  ready: true,
};
