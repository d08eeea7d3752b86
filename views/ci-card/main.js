// CI failure card, for get_failing_tests (a PR's failing tests, grouped by job) and
// get_workflow_run_overview (a run's jobs). Log excerpts are fetched through the host only
// when the human opens them (get_job_logs, read-only); "Rerun failed jobs" is an ordinary
// rerun_failed_jobs call, gated like any write.
import { h, payload, plural, startCard } from "../shared/card.js";

const state = { data: null, tool: null, ref: null, prUrl: null, status: null, approval: null, busy: false };
const logs = new Map(); // job id -> Promise of its failed-steps log text

/** A status value as a person reads it: no_checks -> "no checks", timed_out -> "timed out". */
function statusLabel(value) {
  return String(value || "").replace(/_/g, " ");
}

const PILL_CLASS = { failed: "bad", passed: "ok", no_checks: "muted" };

function refOf(input, data) {
  const text = String(input.pr || "");
  const m = /([\w.-]+\/[\w.-]+)#(\d+)/.exec(text) || /([\w.-]+\/[\w.-]+)\/pull\/(\d+)/.exec(text);
  if (m) return { full_name: m[1], number: Number(m[2]) };
  if (input.full_name) return { full_name: input.full_name, number: Number(input.number || data.pr || 0) || null };
  return null;
}

function jobLog(card, jobId) {
  if (!logs.has(jobId)) {
    const request = card
      .callTool("get_job_logs", { full_name: state.ref.full_name, job_id: jobId, failed_steps_only: true })
      .then((r) => String(payload(r).log || ""));
    request.catch(() => logs.delete(jobId)); // a failed fetch may be tried again
    logs.set(jobId, request);
  }
  return logs.get(jobId);
}

/** The lines of a job's log about one test: from its first mention, else the log's end. */
function excerpt(log, test) {
  const lines = log.split("\n");
  const names = [test, test.split("::").pop(), test.split(" › ").pop()].filter(Boolean);
  for (const name of names) {
    const at = lines.findIndex((line) => line.includes(name));
    if (at >= 0) return lines.slice(at, at + 24).join("\n");
  }
  return lines.slice(-30).join("\n");
}

function logDetails(card, jobId, test) {
  if (!card.can("get_job_logs")) return null; // no log excerpt this session could fetch
  const box = h("pre", { class: "log" }, "Loading the log…");
  return h(
    "details",
    {
      class: "excerpt",
      ontoggle: async (event) => {
        if (!event.target.open || box.dataset.loaded) return;
        try {
          const log = await jobLog(card, jobId);
          box.textContent = test ? excerpt(log, test) : log;
          box.dataset.loaded = "1";
        } catch (err) {
          box.textContent = `The log could not be read: ${err.message}`;
        }
      },
    },
    h("summary", {}, "Log excerpt"),
    box,
  );
}

function fileOf(failure) {
  if (failure.file) return failure.file;
  const path = String(failure.test || "").split("::")[0];
  return /\.[a-z]+$/i.test(path) ? path : null;
}

function blobUrl(path, line) {
  if (!state.prUrl || !path) return null;
  const repoUrl = state.prUrl.replace(/\/pull\/\d+\/?$/, "");
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  return `${repoUrl}/blob/${state.data.head_sha}/${encoded}${line ? `#L${line}` : ""}`;
}

function failureRow(card, failure, jobId) {
  const path = fileOf(failure);
  const where = path ? `${path}${failure.line ? `:${failure.line}` : ""}` : null;
  const url = blobUrl(path, failure.line);
  return h(
    "li",
    { "data-test": failure.test },
    h("div", { class: "mono test" }, failure.test),
    failure.message ? h("pre", { class: "message" }, failure.message) : null,
    where
      ? h(
          "div",
          { class: "meta" },
          url ? h("a", { href: url, class: "location", onclick: (e) => (e.preventDefault(), card.openLink(url)) }, where) : h("span", { class: "location" }, where),
        )
      : null,
    failure.rerun ? h("div", { class: "meta" }, "Rerun: ", h("code", { class: "rerun" }, failure.rerun)) : null,
    jobId ? logDetails(card, jobId, failure.test) : null,
  );
}

function failingTests(card) {
  const d = state.data;
  const jobs = new Map((d.failed_jobs || []).map((j) => [j.job, { ...j, failures: [] }]));
  for (const failure of d.failures || []) {
    if (!jobs.has(failure.job)) jobs.set(failure.job, { job: failure.job, failures: [] });
    jobs.get(failure.job).failures.push(failure);
  }
  const counts = d.checks || {};
  return [
    h(
      "header",
      {},
      h("h1", {}, `CI failures · ${state.ref.full_name}#${state.ref.number ?? d.pr}`),
      h(
        "p",
        { class: "pills" },
        h("span", { class: `pill ${PILL_CLASS[d.status] || "warn"}`, "data-pill": d.status }, statusLabel(d.status)),
        h("span", { class: "meta mono" }, String(d.head_sha || "").slice(0, 7)),
      ),
      h(
        "p",
        { class: "meta", "data-counts": "" },
        `${plural(d.total_failures ?? (d.failures || []).length, "failing test")} in ${plural(jobs.size, "job")} · checks: ${counts.passed ?? 0} passed, ${counts.failed ?? 0} failed, ${counts.pending ?? 0} pending`,
      ),
    ),
    actions(card),
    [...jobs.values()].map((job) =>
      h(
        "section",
        { class: "job", "data-job": job.job },
        h("h2", {}, `${job.job} · ${plural(job.failures.length, "test")}`),
        job.step ? h("p", { class: "meta" }, `Failed step: ${job.step}`) : null,
        h("ul", { class: "rows" }, job.failures.map((f) => failureRow(card, f, job.job_id))),
        !job.failures.length && job.job_id ? logDetails(card, job.job_id, null) : null,
      ),
    ),
    (d.other_failures || []).length
      ? h(
          "section",
          { id: "other" },
          h("h2", {}, "Other failing checks"),
          h(
            "ul",
            { class: "rows" },
            d.other_failures.map((o) =>
              h("li", { "data-check": o.check }, h("strong", {}, o.check), " ", o.detail || "", o.url ? [" ", h("a", { href: o.url, onclick: (e) => (e.preventDefault(), card.openLink(o.url)) }, "details")] : null),
            ),
          ),
        )
      : null,
  ];
}

function runOverview(card) {
  const { run, jobs = [] } = state.data;
  return [
    h(
      "header",
      {},
      h("h1", {}, `${run.workflow} #${run.number}${run.attempt > 1 ? ` (attempt ${run.attempt})` : ""}`),
      h("p", { class: "title" }, run.title || ""),
      h(
        "p",
        { class: "pills" },
        h("span", { class: `pill ${run.conclusion === "success" ? "ok" : run.conclusion ? "bad" : "warn"}`, "data-pill": run.conclusion || run.status }, statusLabel(run.conclusion || run.status)),
        h("span", { class: "meta" }, `${run.event} on `, h("span", { class: "mono" }, run.branch || ""), " · ", h("span", { class: "mono" }, String(run.head_sha || "").slice(0, 7))),
      ),
    ),
    actions(card),
    h(
      "section",
      { id: "jobs" },
      h("h2", {}, plural(jobs.length, "job")),
      h(
        "ul",
        { class: "rows" },
        jobs.map((job) =>
          h(
            "li",
            { "data-job": job.name },
            h("span", { class: job.conclusion === "success" ? "ok" : job.conclusion ? "bad" : "warn" }, statusLabel(job.conclusion || job.status)),
            " ",
            h("strong", {}, job.name),
            job.duration_s !== undefined ? h("span", { class: "meta" }, ` · ${job.duration_s}s`) : null,
            (job.failed_steps || []).length
              ? h("div", { class: "meta" }, "Failed: ", job.failed_steps.map((s) => `${s.number}. ${s.name}`).join(", "))
              : null,
            job.conclusion && job.conclusion !== "success" && job.conclusion !== "skipped" ? logDetails(card, job.id, null) : null,
          ),
        ),
      ),
    ),
  ];
}

async function failedRunIds(card) {
  if (state.tool === "get_workflow_run_overview") return [state.data.run.id];
  const runs = payload(await card.callTool("list_workflow_runs", { full_name: state.ref.full_name, head_sha: state.data.head_sha })).runs || [];
  return runs.filter((r) => r.status === "completed" && ["failure", "timed_out", "cancelled"].includes(r.conclusion)).map((r) => r.id);
}

async function rerun(card) {
  if (state.busy) return;
  Object.assign(state, { busy: true, approval: null, status: { kind: "muted", text: "Rerunning failed jobs…" } });
  draw(card);
  try {
    const ids = await failedRunIds(card);
    const started = [];
    for (const id of ids) {
      const answer = payload(await card.callTool("rerun_failed_jobs", { full_name: state.ref.full_name, run_id: id }));
      started.push(`run ${id} (attempt ${answer.attempt ?? "?"})`);
    }
    state.status = { kind: "ok", text: started.length ? `Rerun started: ${started.join(", ")}.` : "No failed run to rerun." };
  } catch (err) {
    state.status = { kind: "bad", text: `Rerun: ${err.message}` };
    if (err.approvalUrl) state.approval = err.approvalUrl;
  }
  state.busy = false;
  draw(card);
}

// Rerunning a PR's failures first finds the head commit's failed runs.
function canRerun(card) {
  const finds = state.tool === "get_workflow_run_overview" || card.can("list_workflow_runs");
  return finds && card.can("rerun_failed_jobs");
}

function actions(card) {
  const failed = state.tool === "get_failing_tests" ? state.data.status === "failed" : state.data.run?.status === "completed" && state.data.run?.conclusion !== "success";
  return [
    h(
      "div",
      { class: "actions" },
      canRerun(card) ? h("button", { id: "rerun", disabled: state.busy || !failed, onclick: () => rerun(card) }, "Rerun failed jobs") : null,
      state.prUrl ? h("button", { id: "open", onclick: () => card.openLink(state.prUrl) }, "Open pull request") : null,
    ),
    h("p", { id: "status", class: `status ${state.status?.kind || ""}`, role: "status" }, state.status?.text || ""),
    state.approval
      ? h(
          "div",
          { class: "approval", id: "approval" },
          h("p", {}, "The rerun waits for a human's approval on the server's approval page."),
          h("button", { id: "approval-link", onclick: () => card.openLink(state.approval) }, "Open the approval page"),
          " ",
          h("button", { id: "retry", onclick: () => rerun(card) }, "Approved: try again"),
        )
      : null,
  ];
}

function draw(card) {
  const body = state.tool === "get_workflow_run_overview" ? runOverview(card) : failingTests(card);
  card.show(h("article", { class: "ci", "data-ready": "" }, body));
}

startCard("ci-card", async (card, data, input) => {
  logs.clear();
  Object.assign(state, { data, status: null, approval: null, prUrl: null });
  state.tool = "run" in data ? "get_workflow_run_overview" : "get_failing_tests";
  state.ref = refOf(input, data);
  if (!state.ref) {
    card.show(h("p", { class: "error", "data-ready": "" }, "This result names no repository."));
    return;
  }
  if (state.tool === "get_failing_tests" && state.ref.number && card.can("get_pr_overview")) {
    // The PR's web address, for links to files at the commit (a read-only call).
    try {
      const overview = payload(await card.callTool("get_pr_overview", { pr: `${state.ref.full_name}#${state.ref.number}` }));
      state.prUrl = overview.url || null;
    } catch {
      state.prUrl = null;
    }
  }
  draw(card);
});
