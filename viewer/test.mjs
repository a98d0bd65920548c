// The viewer's test in a real browser (CTest: tests/viewer.cmake).
//
//   node viewer/test.mjs --demo build/tools/crowdik_demo --work DIR     # the test
//   node viewer/test.mjs --page FILE.html --measure 10 [--shot F.png]   # frame rate, screenshot
//        [--distance M] [--query bones=solid] [--frame F --character C --shotDistance M [--foot 0|1]]
//
// The test writes the page for a short scene with the demo, checks the
// page's script with `node --check`, opens the page from disk in headless
// Chromium (Debian's /usr/bin/chromium, software WebGL, every request off
// the machine refused) through playwright-core, and wants: no console
// error; the animation advancing (two frames' screenshots differ where the
// legs are, and only there); legs over terrain (pixel statistics). It
// prints "SKIPPED: ..." and exits 0 when Chromium or node_modules is absent.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) =>
  (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : true]] : a), []));
const chromium = args.chromium || process.env.CROWDIK_CHROMIUM || '/usr/bin/chromium';

function skip(why) {
  console.log(`SKIPPED: ${why}`);
  process.exit(0);
}
function fail(why) {
  console.error(`FAIL: ${why}`);
  process.exitCode = 1;
}

if (!existsSync(chromium)) skip(`no Chromium at ${chromium} (apt-get install chromium)`);
if (!existsSync(join(here, 'node_modules', 'playwright-core')) || !existsSync(join(here, 'node_modules', 'pngjs')))
  skip(`viewer/node_modules is not installed (npm ci --prefix ${here})`);
const { chromium: browserType } = await import('playwright-core');
const { PNG } = (await import('pngjs')).default;

// The page's script and this one, checked as the modules they are.
for (const f of ['viewer.js', 'test.mjs']) execFileSync(process.execPath, ['--check', join(here, f)]);

let page = args.page;
const work = resolve(args.work || 'viewer-test');
mkdirSync(work, { recursive: true });
if (!page) {
  if (!args.demo) { console.error('usage: test.mjs --demo CROWDIK_DEMO [--work DIR] | --page FILE.html'); process.exit(2); }
  page = join(work, 'view.html');
  execFileSync(args.demo, ['--characters', '6', '--frames', '90', '--quiet', '--out', join(work, 'demo.svg'),
    '--view', page], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const browser = await browserType.launch({
  executablePath: chromium,
  args: ['--headless', '--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
});
const [w, h] = (args.size || '1280x720').split('x').map(Number);
const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1 });
const offline = [];
await context.route('**/*', (route) => {
  const url = route.request().url();
  if (url.startsWith('file:')) return route.continue();
  offline.push(url);
  return route.abort();
});
const tab = await context.newPage();
const errors = [];
tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
tab.on('pageerror', (e) => errors.push(String(e)));
await tab.goto(pathToFileURL(resolve(page)).href + (args.query ? `?${args.query}` : ''));
await tab.waitForFunction(() => window.crowdikViewer && window.crowdikViewer.ready, null, { timeout: 120000 });
const meta = await tab.evaluate(() => window.crowdikViewer.meta);
const decodeMs = await tab.evaluate(() => window.crowdikViewer.decodeMs);
console.log(`page: ${meta.characters} characters, ${meta.frames} frames, motion ${meta.motionBytes} B, ` +
  `terrain ${meta.terrainBytes} B, decoded in ${decodeMs.toFixed(0)} ms, file ${readFileSync(page).length} B`);

const canvas = tab.locator('#view canvas');
async function shot(setup) {
  await tab.evaluate(setup);
  // two animation frames: the state is drawn by the next render
  await tab.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return PNG.sync.read(await canvas.screenshot());
}

if (args.measure) {
  // Frame rate: the page's own timer while it plays, over a wide view of the crowd.
  await tab.evaluate((d) => { const v = window.crowdikViewer; v.pause(false); v.lookAt(0, d); }, +(args.distance || 30));
  const seconds = +args.measure, samples = [], scales = [];
  for (let s = 0; s < seconds; ++s) {
    await tab.waitForTimeout(1000);
    samples.push(await tab.evaluate(() => window.crowdikViewer.fps()));
    scales.push(await tab.evaluate(() => window.crowdikViewer.scale()));
  }
  const frames = await tab.evaluate(() => window.crowdikViewer.frame());
  console.log(`frame rate (page timer, per second): ${samples.map((x) => x.toFixed(1)).join(' ')}; now at frame ${frames}`);
  console.log(`pixel scale (per second): ${scales.join(' ')}`);
  const steady = samples.length > 2 ? samples.slice(2) : samples; /* the first two seconds warm up */
  console.log(`frame rate: median ${steady.sort((a, b) => a - b)[steady.length >> 1].toFixed(1)} fps over ${steady.length} s`);
}
if (args.shot) {
  await shot(`window.crowdikViewer.fixedScale = true; window.crowdikViewer.three.renderer.setPixelRatio(1);
    window.dispatchEvent(new Event('resize'))`).then(() => shot(`(() => { const v = window.crowdikViewer; v.pause(); v.setFrame(${+(args.frame || 40)});
    v.lookAt(${+(args.character || 0)}, ${+(args.shotDistance || 5)}, ${args.foot === undefined ? -1 : +args.foot}); })()`));
  // the whole page: the view, the controls and the report beside it
  writeFileSync(args.shot, await tab.screenshot());
  console.log(`screenshot: ${args.shot}`);
}

if (!args.measure && !args.shot) {
  // The same camera on character 0 for all four pictures.
  const frameA = 10, frameB = 40;
  await tab.evaluate(() => { window.crowdikViewer.fixedScale = true; });
  const look = `const v = window.crowdikViewer; v.pause(); v.lookAt(0, 4);`;
  const groundA = await shot(`(() => { ${look} v.setFrame(${frameA}); v.lookAt(0, 4); v.showCharacters(false); })()`);
  const legsA = await shot(`(() => { const v = window.crowdikViewer; v.showCharacters(true); v.setMode('both'); })()`);
  const legsB = await shot(`(() => { const v = window.crowdikViewer; v.setFrame(${frameB}); })()`);
  const groundB = await shot(`(() => { const v = window.crowdikViewer; v.showCharacters(false); })()`);
  writeFileSync(join(work, 'frame-a.png'), PNG.sync.write(legsA, { colorType: 2 }));
  writeFileSync(join(work, 'frame-b.png'), PNG.sync.write(legsB, { colorType: 2 }));

  const n = legsA.width * legsA.height;
  const px = (img, i) => [img.data[4 * i], img.data[4 * i + 1], img.data[4 * i + 2]];
  const differ = (a, b, i) => Math.max(...px(a, i).map((c, k) => Math.abs(c - px(b, i)[k]))) > 24;
  let legPxA = 0, legPxB = 0, changedOnLegs = 0, changedOffLegs = 0, blue = 0, red = 0;
  const lum = [];
  for (let i = 0; i < n; ++i) {
    const onA = differ(legsA, groundA, i), onB = differ(legsB, groundB, i);
    legPxA += onA; legPxB += onB;
    if (differ(legsA, legsB, i)) (onA || onB ? ++changedOnLegs : ++changedOffLegs);
    const [r, g, b] = px(legsA, i);
    if (onA && b > r + 60 && b > g + 30) ++blue; // the solved left leg
    if (onA && r > b + 60 && r > g + 60) ++red; // the solved right leg
    const [gr, gg, gb] = px(groundA, i);
    lum.push(0.2126 * gr + 0.7152 * gg + 0.0722 * gb);
  }
  const mean = lum.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(lum.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  const bg = [0xdf, 0xe6, 0xec], sky = lum.filter((_, i) => px(groundA, i).every((c, k) => Math.abs(c - bg[k]) < 6)).length;
  console.log(`pixels: ${n}; legs at frame ${frameA}: ${legPxA}, at frame ${frameB}: ${legPxB} (blue ${blue}, red ${red}); ` +
    `changed between the frames: ${changedOnLegs} where legs are, ${changedOffLegs} elsewhere; ` +
    `terrain-only picture: luminance mean ${mean.toFixed(1)} sd ${sd.toFixed(1)}, background ${(100 * sky / n).toFixed(1)} %`);
  if (legPxA < 0.002 * n || legPxB < 0.002 * n) fail('too few leg pixels: the legs are not drawn');
  if (blue < 50 || red < 50) fail('the solved legs (blue left, red right) are not both visible');
  if (changedOnLegs < 0.001 * n) fail('the two frames do not differ where the legs are: the animation does not advance');
  if (changedOffLegs > 0.05 * changedOnLegs) fail('the frames differ away from the legs (the camera or terrain moved)');
  if (sky > 0.9 * n) fail('the terrain-only picture is nearly all background: no terrain drawn');
  if (sd < 3) fail('the terrain-only picture is flat: no shading');
  // the animated legs alone: the solved ones' blue and red are gone
  const animOnly = await shot(`(() => { const v = window.crowdikViewer; v.showCharacters(true); v.setMode('anim'); })()`);
  let solvedLeft = 0;
  for (let i = 0; i < n; ++i) {
    const [r, g, b] = px(animOnly, i);
    if ((b > r + 60 && b > g + 30) || (r > b + 60 && r > g + 60)) ++solvedLeft;
  }
  console.log(`animated legs only: ${solvedLeft} blue or red pixels`);
  if (solvedLeft > 0.1 * (blue + red)) fail('the "animated" mode still draws the solved legs');
  await tab.evaluate(() => window.crowdikViewer.setMode('both'));
  // the clock advances while playing
  const f0 = await tab.evaluate(() => { const v = window.crowdikViewer; v.pause(false); return v.frame(); });
  await tab.waitForTimeout(700);
  const f1 = await tab.evaluate(() => window.crowdikViewer.frame());
  console.log(`playing: frame ${f0} -> ${f1} in 0.7 s`);
  if (f1 === f0) fail('playback does not advance the frame');
}

if (offline.length) fail(`the page asked the network for ${offline.join(', ')}`);
if (errors.length) fail(`console errors:\n  ${errors.join('\n  ')}`);
await browser.close();
if (!process.exitCode) console.log('viewer test passed');
