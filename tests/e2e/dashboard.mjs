// The dashboard's browser test: Playwright (playwright-core from web/node_modules) driving
// Debian's Chromium headless against running `floe server`s that tests/interop/
// test_dashboard.py started and filled with tables through pyiceberg. What to expect comes
// in FLOE_E2E (JSON, from pyiceberg and the test's own inputs); screenshots of every page go
// to FLOE_E2E_SCREENSHOTS. Prints one JSON line of what it saw; exits 1 on the first failed
// check.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const expect = JSON.parse(process.env.FLOE_E2E);
const shots = process.env.FLOE_E2E_SCREENSHOTS;
const require = createRequire(path.join(expect.web_src, "package.json"));
const { chromium } = require("playwright-core");

fs.mkdirSync(shots, { recursive: true });
const seen = {};
const problems = [];

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

const browser = await chromium.launch({
  executablePath: expect.chromium,
  headless: true,
  // As root in a sandbox-less container; no background traffic (the network is closed).
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});

async function newPage() {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.setDefaultTimeout(20000);
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

async function open(page, url) {
  await page.goto(url);
  await page.waitForSelector('main[aria-busy="false"]');
}

// The card whose heading is exactly `title`.
function cardOf(page, title) {
  return page.locator(`section.card:has(> h2:text-is("${title}"))`);
}

async function text(page, selector) {
  return (await page.locator(selector).first().textContent())?.trim() ?? "";
}

try {
  const base = expect.url;
  const page = await newPage();

  // Overview: the counts pyiceberg produced, the table among the largest.
  await open(page, `${base}/`);
  seen.overview = {
    tables: await text(page, '[data-testid="table-count"] .stat-value'),
    dataFiles: await text(page, '[data-testid="data-file-count"] .stat-value'),
    catalogs: await text(page, '[data-testid="catalog-count"] .stat-value'),
  };
  check(seen.overview.tables === String(expect.tables), `overview tables ${seen.overview.tables}`);
  check(seen.overview.dataFiles === String(expect.total_data_files), `overview data files ${seen.overview.dataFiles}`);
  check(seen.overview.catalogs === "1", `overview catalogs ${seen.overview.catalogs}`);
  check((await cardOf(page, "Largest tables").textContent()).includes(`default.${expect.table}`),
        "largest tables lists the table");
  check(await page.locator("svg.chart").count() >= 3, "overview charts");
  // History: the server samples every few hundred ms (the test's floe.yaml), so every
  // chart has points, and the files chart ends at pyiceberg's total.
  seen.historyPoints = await page.locator('[data-testid="history-size"] circle.ts-point').count();
  check(seen.historyPoints >= 3, `history points ${seen.historyPoints}`);
  for (const id of ["history-size", "history-files", "history-optimizer", "history-ingest", "history-memory", "history-cpu"]) {
    check(await page.locator(`[data-testid="${id}"] svg.time-series path.ts-line`).count() >= 1, `${id} line`);
    check(await page.locator(`[data-testid="${id}"] circle.ts-point`).count() >= 3, `${id} points`);
  }
  check((await page.locator('[data-testid="history-files"]').textContent()).includes(`data files: ${expect.total_data_files}`),
        "files history ends at the current total");
  await shot(page, "overview");

  // Tables: the table with pyiceberg's file count.
  await open(page, `${base}/tables`);
  const row = page.locator("tr", { hasText: `default.${expect.table}` });
  check(await row.count() === 1, "tables page row");
  check((await row.locator("td").nth(2).textContent()).trim() === String(expect.data_files), "tables page data files");
  await shot(page, "tables");

  // Table: schema and snapshots as pyiceberg wrote them.
  const tableUrl = `${base}/tables/default/${expect.namespace}/${expect.name}`;
  await open(page, tableUrl);
  const schemaCard = cardOf(page, "Schema");
  for (const f of expect.fields) {
    const fr = schemaCard.locator("tbody tr", { hasText: f.name });
    check(await fr.count() >= 1, `schema field ${f.name}`);
    check((await fr.first().locator("td").nth(2).textContent()).trim() === f.type, `type of ${f.name}`);
  }
  const snapRows = cardOf(page, "Snapshots").locator("tbody tr");
  seen.snapshotsBefore = await snapRows.count();
  check(seen.snapshotsBefore === expect.snapshot_ids.length, `snapshots ${seen.snapshotsBefore}`);
  // 64-bit ids exactly as pyiceberg reads them (no rounding to a JS number).
  const shownIds = (await snapRows.locator("td:first-child").allTextContents()).map((s) => s.trim()).sort();
  check(JSON.stringify(shownIds) === JSON.stringify([...expect.snapshot_ids].sort()), `snapshot ids ${shownIds}`);
  check(/^\d+$/.test(await text(page, '[data-testid="health-score"]')), "health score shown");
  check(await cardOf(page, "Files").locator("svg.chart").count() === 1, "file size histogram");
  // Size over time from the snapshot summaries' totals: pyiceberg's file count at the end.
  check((await cardOf(page, "Size over time").locator("svg.chart").textContent()).includes(`data files: ${expect.data_files}`),
        "size over time ends at the current file count");
  await shot(page, "table");

  // Editing a property persists (the test reads it back through pyiceberg).
  await page.getByRole("button", { name: "Add property" }).click();
  await page.locator("input.prop-key").last().fill(expect.property[0]);
  await page.locator("input.prop-value").last().fill(expect.property[1]);
  await page.getByTestId("save-properties").click();
  await page.waitForSelector(`input[data-property="${expect.property[0]}"]`);
  check(await page.locator(`input[data-property="${expect.property[0]}"]`).inputValue() === expect.property[1], "property saved");
  await page.reload();
  await page.waitForSelector('main[aria-busy="false"]');
  check(await page.locator(`input[data-property="${expect.property[0]}"]`).inputValue() === expect.property[1], "property after reload");

  // Optimize now: a process appears and ends, and an optimize snapshot joins the timeline.
  check(await cardOf(page, "Optimizing processes").locator("tbody tr").count() === 0, "no process before");
  await page.locator('select[name="mode"]').selectOption("full");
  await page.getByTestId("optimize").click();
  const deadline = Date.now() + 60000;
  let status = "";
  while (Date.now() < deadline) {
    await page.waitForSelector('main[aria-busy="false"]');
    const procs = cardOf(page, "Optimizing processes").locator("tbody tr");
    if (await procs.count() > 0) {
      status = (await procs.first().locator("td").nth(2).textContent()).trim();
      if (status !== "running") break;
    }
    await page.waitForTimeout(300);
    await page.reload();
  }
  seen.processStatus = status;
  check(status === "success", `process status ${status}`);
  seen.snapshotsAfter = await snapRows.count();
  check(seen.snapshotsAfter === expect.snapshot_ids.length + 1, `snapshots after optimize ${seen.snapshotsAfter}`);
  check(await cardOf(page, "Snapshots").locator("tbody tr", { hasText: "optimize" }).count() === 1,
        "an optimize snapshot");
  await shot(page, "table-after-optimize");

  // The process's tasks: what each read and wrote (the full optimize merged four files).
  const processCard = cardOf(page, "Optimizing processes");
  await processCard.getByTestId("show-tasks").first().click();
  const taskTable = processCard.locator(".tasks table");
  await taskTable.waitFor();
  const taskHeads = (await taskTable.locator("th").allTextContents()).map((t) => t.trim());
  const taskCells = (await taskTable.locator("tbody tr").first().locator("td").allTextContents()).map((t) => t.trim());
  const taskField = (name) => taskCells[taskHeads.indexOf(name)];
  seen.task = { status: taskField("status"), inputFiles: taskField("input-files"), outputFiles: taskField("output-files") };
  check(seen.task.status === "success", `task status ${seen.task.status}`);
  check(seen.task.inputFiles === String(expect.data_files), `task input files ${seen.task.inputFiles}`);
  check(seen.task.outputFiles === "1", `task output files ${seen.task.outputFiles}`);
  await shot(page, "table-tasks");

  // Pause and resume: each changes the table's state as the API reports it.
  seen.paused = [];
  for (const action of ["pause", "resume"]) {
    const [resp] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith(`/${action}`)),
      page.getByTestId(action).click(),
    ]);
    seen[action] = resp.status();
    if (resp.status() === 404 || resp.status() === 405) {
      await page.waitForSelector("p.not-available");
    } else {
      check(resp.status() >= 200 && resp.status() < 300, `${action} answered ${resp.status()}`);
      await page.waitForSelector('main[aria-busy="false"]');
      check(await page.locator("p.error").count() === 0, `${action} shows no error`);
    }
    const runtimes = await (await page.request.get(`${base}/api/v1/tables?catalog=default&q=${expect.table}`)).json();
    const runtime = runtimes.items.find((r) => r.identifier === expect.table);
    seen.paused.push(runtime?.paused);
  }
  check(JSON.stringify(seen.paused) === "[true,false]", `paused after pause, resume: ${seen.paused}`);

  // Catalogs: attach pyiceberg's SQL catalog through the form, browse it, edit it.
  await open(page, `${base}/catalogs`);
  check(await page.locator("tbody tr", { hasText: "default" }).count() === 1, "default catalog listed");
  await shot(page, "catalogs");
  const form = page.getByTestId("attach-catalog");
  await form.locator('input[name="name"]').fill(expect.sql.name);
  await form.locator('select[name="type"]').selectOption("sql");
  await form.locator('input[name="uri"]').fill(expect.sql.uri);
  await form.locator('input[name="warehouse"]').fill(expect.sql.warehouse);
  await form.locator('textarea[name="properties"]').fill(`catalog-name=${expect.sql.catalog_name}`);
  await form.getByRole("button", { name: "Attach" }).click();
  await page.waitForURL(`**/catalogs/${expect.sql.name}`);
  await page.waitForSelector('main[aria-busy="false"]');
  await page.getByRole("link", { name: expect.sql.namespace, exact: true }).click();
  await page.waitForSelector(`a:text-is("${expect.sql.table}")`);
  const edit = page.getByTestId("edit-catalog");
  await edit.locator('textarea[name="properties"]').fill(`catalog-name=${expect.sql.catalog_name}\n${expect.sql.property[0]}=${expect.sql.property[1]}`);
  const [saved] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "PUT" && r.url().endsWith(`/api/v1/catalogs/${expect.sql.name}`)),
    edit.getByRole("button", { name: "Save" }).click(),
  ]);
  check(saved.status() === 200, `catalog edit answered ${saved.status()}`);
  await page.waitForSelector('main[aria-busy="false"]');
  await shot(page, "catalog");
  // The attached catalog's table, empty as pyiceberg created it, renders too.
  await open(page, `${base}/tables/${expect.sql.name}/${expect.sql.namespace}/${expect.sql.table}`);
  check((await text(page, "main h1")).startsWith(`${expect.sql.namespace}.${expect.sql.table}`), "attached table page");
  check((await cardOf(page, "Snapshots").textContent()).includes("No snapshots."), "empty table has no snapshots");
  await shot(page, "table-attached-empty");

  // Optimizers: the local group with its threads; a group created through the form.
  await open(page, `${base}/optimizers`);
  const groups = cardOf(page, "Optimizer groups");
  check(await groups.locator("tbody tr", { hasText: "local" }).count() === 1, "local optimizer group");
  await groups.locator('input[name="group"]').fill(expect.group);
  const [created] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/api/v1/optimizer-groups")),
    groups.getByRole("button", { name: "Create group" }).click(),
  ]);
  check(created.status() === 201 || created.status() === 200, `group create answered ${created.status()}`);
  await page.waitForSelector(`tr:has(td:text-is("${expect.group}"))`);
  check((await page.request.get(`${base}/api/v1/optimizer-groups/${expect.group}`)).status() === 200, "group in the API");
  await shot(page, "optimizers");

  // Topics: the table topic, running (the test produces into it from here on).
  console.log("phase: topics");
  await open(page, `${base}/topics`);
  check(await page.locator("tbody tr", { hasText: expect.topic }).count() === 1, "topic listed");
  await shot(page, "topics");
  // Produce-time validation: the refused records' count and their last messages.
  {
    const heads = (await page.locator("thead th").allTextContents()).map((t) => t.trim());
    const row = page.locator("tbody tr", { hasText: expect.checked_topic });
    const cells = (await row.locator("td").allTextContents()).map((t) => t.trim());
    check(cells[heads.indexOf("refused")] === "2", `refused ${cells[heads.indexOf("refused")]}`);
    const last = cells[heads.indexOf("last refusals")] ?? "";
    check(last.includes("schema id 123456 is not registered") && last.includes("no schema registry header"),
      `last refusals ${last}`);
  }
  await page.locator("tbody tr", { hasText: expect.topic }).getByRole("link", { name: "details" }).click();
  await page.waitForURL(`**/topics/${expect.topic}`);
  const topicDeadline = Date.now() + 20000;
  for (;;) {
    await page.waitForSelector('main[aria-busy="false"]');
    seen.produceRate = await text(page, 'dd[data-key="produce-rate"]');
    if (seen.produceRate !== "0" && seen.produceRate !== "–") break;
    check(Date.now() < topicDeadline, `produce rate stays ${seen.produceRate}`);
    await page.waitForTimeout(300);
    await page.reload();
  }
  check(await text(page, 'dd[data-key="table-topic"]') === "yes", "a table topic");
  check(await text(page, 'dd[data-key="table"]') === expect.topic_table, "its table");
  check(await text(page, 'dd[data-key="dlq-records"]') === String(expect.dlq_records), "dead-letter count");
  seen.lag = await text(page, 'dd[data-key="translation-lag-offsets"]');
  check(/^[\d,]+$/.test(seen.lag), `translation lag ${seen.lag}`);
  const committed = Number((await text(page, 'dd[data-key="rows-committed"]')).replace(/\D/g, ""));
  check(committed >= expect.good_records, `rows committed ${committed}`);
  // The newest record as the producer sent it (the test checks it against its rule).
  const recordsCard = cardOf(page, "Recent records");
  const recordHeads = (await recordsCard.locator("th").allTextContents()).map((t) => t.trim());
  const firstRecord = (await recordsCard.locator("tbody tr").first().locator("td").allTextContents()).map((t) => t.trim());
  seen.topicSample = firstRecord[recordHeads.indexOf("value")];
  check(seen.topicSample?.startsWith("{"), `record sample ${seen.topicSample}`);
  await shot(page, "topic");
  // The topic's table: its snapshots come from ingest.
  await open(page, `${base}/tables/default/kafka/${expect.topic}`);
  check(await cardOf(page, "Snapshots").locator("tbody tr", { hasText: "ingest" }).count() >= 1, "ingest snapshots");
  await shot(page, "topic-table");

  // Settings: the effective configuration, secrets masked.
  await open(page, `${base}/settings`);
  check(await text(page, 'dd[data-key="http.port"]') === String(expect.port), "settings http.port");
  await shot(page, "settings");

  // SPA routes load directly, and an unknown one says so.
  await open(page, `${base}/no/such/page`);
  check((await text(page, "main h1")) === "Not found", "unknown client route");

  // Login on the server with authentication on.
  const auth = await newPage();
  await auth.goto(`${expect.auth_url}/tables`);
  await auth.waitForURL("**/login?next=%2Ftables");
  await auth.locator('input[name="client_id"]').fill(expect.client_id);
  await auth.locator('input[name="client_secret"]').fill("wrong");
  await auth.getByRole("button", { name: "Sign in" }).click();
  await auth.waitForSelector("p.error");
  await shot(auth, "login");
  await auth.locator('input[name="client_secret"]').fill(expect.secret);
  await auth.getByRole("button", { name: "Sign in" }).click();
  await auth.waitForURL("**/tables");
  await auth.waitForSelector('main[aria-busy="false"]');
  check((await auth.locator("main h1").textContent()).trim() === "Tables", "signed in onto the tables page");
  await auth.getByRole("link", { name: "Overview" }).click();
  await auth.waitForSelector('[data-testid="catalog-count"]');
  seen.authCatalogs = await text(auth, '[data-testid="catalog-count"] .stat-value');
  check(seen.authCatalogs === "1", "overview after sign-in");
  // The principal is listed with its roles; its secret (nor its hash) is nowhere.
  await auth.getByRole("link", { name: "Settings" }).click();
  await auth.waitForSelector('dd[data-key="auth.principals.0.name"]');
  check(await text(auth, 'dd[data-key="auth.principals.0.name"]') === expect.client_id, "principal listed");
  const settingsText = await auth.locator("main").textContent();
  check(!settingsText.includes(expect.secret) && !settingsText.includes(expect.secret_sha256), "no secret on the settings page");
  await shot(auth, "settings-auth");

  check(problems.length === 0, `no page errors: ${problems.join("; ")}`);
  console.log(JSON.stringify({ ok: true, seen }));
} catch (e) {
  // What each page showed when the check failed, beside the other screenshots.
  for (const [i, p] of browser.contexts().flatMap((c) => c.pages()).entries()) {
    await p.screenshot({ path: path.join(shots, `failure-${i}.png`), fullPage: true }).catch(() => {});
  }
  console.log(JSON.stringify({ ok: false, error: String(e?.stack ?? e), seen, problems }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
