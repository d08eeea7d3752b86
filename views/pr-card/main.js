// Pull request card, for get_pr_overview and check_merge_readiness. Whichever of the two
// the model called, the card asks the host for the other (both read-only), so it shows the
// PR, its checks, reviews, threads, conflicts and each merge blocker with its action.
// Its buttons call tools through the host; a merge is an ordinary merge_pull_request call,
// which the server's write gate and approval treat like any other.
import { h, payload, plural, startCard } from "../shared/card.js";
import { markdown } from "../shared/markdown.js";

const state = { overview: null, readiness: null, missing: null, status: null, approval: null, busy: false, loaded: false };

function prRef(input, data) {
  const text = String(input.pr || "");
  const short = /([\w.-]+\/[\w.-]+)#(\d+)/.exec(text) || /([\w.-]+\/[\w.-]+)\/pull\/(\d+)/.exec(text);
  if (short) return { full_name: short[1], number: Number(short[2]) };
  if (input.full_name) return { full_name: input.full_name, number: Number(input.number || data.number) };
  const url = /\/([\w.-]+\/[\w.-]+)\/pull\/(\d+)/.exec(String(data.url || ""));
  return url ? { full_name: url[1], number: Number(url[2]) } : null;
}

async function complete(card, ref) {
  const other = state.overview ? "check_merge_readiness" : "get_pr_overview";
  if (!card.can(other)) {
    state.missing = `${other} is not available in this session`;
    return;
  }
  try {
    const data = payload(await card.callTool(other, { pr: `${ref.full_name}#${ref.number}` }));
    if (other === "get_pr_overview") state.overview = data;
    else state.readiness = data;
  } catch (err) {
    state.missing = `${other}: ${err.message}`;
  }
}

function pill(text, kind) {
  return h("span", { class: `pill ${kind || ""}`, "data-pill": text }, text);
}

const STATUS_CLASS = { passed: "ok", success: "ok", failed: "bad", failure: "bad", pending: "warn" };

function checkRows() {
  const rows = new Map();
  for (const [name, status] of Object.entries(state.readiness?.required_checks || {})) {
    rows.set(name, { name, status, required: true });
  }
  for (const name of state.overview?.checks?.failing || []) {
    if (!rows.has(name)) rows.set(name, { name, status: "failed", required: false });
  }
  return [...rows.values()];
}

function checksSection() {
  const counts = state.overview?.checks;
  const rows = checkRows();
  return h(
    "section",
    { id: "checks" },
    h("h2", {}, "Checks"),
    counts
      ? h(
          "p",
          { class: "meta", "data-counts": "" },
          `${plural(counts.total, "check")}: ${counts.passed} passed, ${counts.failed} failed, ${counts.pending} pending`,
        )
      : null,
    h(
      "ul",
      { class: "rows" },
      rows.map((row) =>
        h(
          "li",
          { "data-check": row.name },
          h("span", { class: STATUS_CLASS[row.status] || "muted" }, row.status),
          " ",
          h("span", { class: "mono" }, row.name),
          row.required ? h("span", { class: "meta" }, " · required") : h("span", { class: "meta" }, " · not required"),
        ),
      ),
    ),
  );
}

function reviewsSection() {
  const reviews = state.overview?.reviews || [];
  const approvals = state.readiness?.approvals;
  return h(
    "section",
    { id: "reviews" },
    h("h2", {}, "Reviews"),
    approvals
      ? h(
          "p",
          { class: "meta", "data-approvals": "" },
          approvals.required
            ? `${approvals.approved_by.length} of ${approvals.required} required approval(s)`
            : `${plural(approvals.approved_by.length, "approval")}, none required`,
        )
      : null,
    reviews.length
      ? h(
          "ul",
          { class: "rows" },
          reviews.map((r) =>
            h(
              "li",
              { "data-reviewer": r.reviewer },
              h("strong", {}, r.reviewer),
              " ",
              h("span", { class: r.state === "APPROVED" ? "ok" : r.state === "CHANGES_REQUESTED" ? "bad" : "muted" }, r.state.toLowerCase().replace(/_/g, " ")),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No reviews yet."),
  );
}

function conflictText() {
  const readiness = state.readiness;
  if (readiness?.blocking?.some((b) => b.kind === "conflicts")) return ["bad", "Conflicts with the base branch."];
  if (readiness?.mergeable === true) return ["ok", "No conflicts."];
  const ms = state.overview?.mergeable_state;
  if (ms === "dirty") return ["bad", "Conflicts with the base branch."];
  return ["muted", "Not known yet (GitHub computes it in the background)."];
}

function blockersSection(card, ref) {
  const readiness = state.readiness;
  if (!readiness) return null;
  const items = [...(readiness.blocking || []).map((b) => ({ ...b, blocking: true })), ...(readiness.warnings || [])];
  return h(
    "section",
    { id: "blockers" },
    h("h2", {}, readiness.blocking?.length ? `Merge blockers (${readiness.blocking.length})` : "Merge blockers"),
    items.length
      ? h(
          "ul",
          { class: "rows" },
          items.map((b) =>
            h(
              "li",
              { "data-kind": b.kind, class: b.blocking ? "blocking" : "warning" },
              h("span", { class: b.blocking ? "bad" : "warn" }, b.blocking ? "blocks" : "warning"),
              " ",
              b.detail,
              h("div", { class: "meta action" }, "→ ", b.action),
              blockerButton(card, ref, b.kind),
            ),
          ),
        )
      : h("p", { class: "ok" }, "Nothing blocks the merge."),
  );
}

// Rerunning reads the head commit's runs, then reruns each failed one.
const canRerun = (card) => card.can("list_workflow_runs") && card.can("rerun_failed_jobs");

function blockerButton(card, ref, kind) {
  if (kind === "checks_failing" && canRerun(card)) {
    return h("button", { class: "inline", onclick: () => rerun(card, ref) }, "Rerun failed jobs");
  }
  if ((kind === "approvals" || kind === "changes_requested") && card.can("request_pr_reviewers")) {
    return h("button", { class: "inline", onclick: () => document.getElementById("reviewers")?.focus() }, "Request a review");
  }
  return null;
}

async function act(card, ref, label, work) {
  if (state.busy) return;
  state.busy = true;
  state.approval = null;
  state.status = { kind: "muted", text: `${label}…` };
  draw(card, ref);
  try {
    state.status = { kind: "ok", text: await work() };
  } catch (err) {
    state.status = { kind: "bad", text: `${label}: ${err.message}` };
    // A gated write: the human approves on the server's page, then the card asks again.
    if (err.approvalUrl) state.approval = { url: err.approvalUrl, retry: () => act(card, ref, label, work) };
  }
  state.busy = false;
  draw(card, ref);
}

function approvalBox(card) {
  if (!state.approval) return null;
  const { url, retry } = state.approval;
  return h(
    "div",
    { class: "approval", id: "approval" },
    h("p", {}, "This write waits for a human's approval on the server's approval page, which shows exactly what will be written."),
    h("button", { id: "approval-link", onclick: () => card.openLink(url) }, "Open the approval page"),
    " ",
    h("button", { id: "retry", onclick: retry }, "Approved: try again"),
  );
}

function rerun(card, ref) {
  return act(card, ref, "Rerunning failed jobs", async () => {
    const sha = state.overview?.head_sha || state.readiness?.head_sha;
    const runs = payload(await card.callTool("list_workflow_runs", { full_name: ref.full_name, head_sha: sha })).runs || [];
    const failed = runs.filter((r) => r.status === "completed" && ["failure", "timed_out", "cancelled"].includes(r.conclusion));
    if (!failed.length) return "No failed run on the head commit to rerun.";
    const done = [];
    for (const run of failed) {
      const answer = payload(await card.callTool("rerun_failed_jobs", { full_name: ref.full_name, run_id: run.id }));
      done.push(`run ${run.id} (attempt ${answer.attempt ?? "?"}, ${answer.status ?? "queued"})`);
    }
    return `Rerun started: ${done.join(", ")}.`;
  });
}

function requestReview(card, ref) {
  const field = document.getElementById("reviewers");
  const users = String(field?.value || "").split(/[\s,]+/).filter(Boolean);
  if (!users.length) {
    state.status = { kind: "warn", text: "Name a reviewer (their login) first." };
    return draw(card, ref);
  }
  return act(card, ref, "Requesting a review", async () => {
    const answer = payload(await card.callTool("request_pr_reviewers", { pr: `${ref.full_name}#${ref.number}`, users }));
    return `Review requested from ${(answer.users || users).join(", ")}.`;
  });
}

function merge(card, ref) {
  return act(card, ref, "Merging", async () => {
    const sha = state.overview?.head_sha || state.readiness?.head_sha;
    const answer = payload(
      await card.callTool("merge_pull_request", { pr: `${ref.full_name}#${ref.number}`, expected_head_sha: sha }),
    );
    return answer.merged ? `Merged as ${String(answer.sha).slice(0, 7)}.` : `Not merged: ${answer.message || "GitHub refused"}.`;
  });
}

function header(ref) {
  const o = state.overview || {};
  const r = state.readiness || {};
  const prState = o.draft ? "draft" : o.state || "open";
  return h(
    "header",
    {},
    h("h1", { class: "title" }, o.title ?? `Pull request #${ref.number}`),
    h(
      "p",
      { class: "pills" },
      pill(prState, prState === "open" ? "ok" : prState === "merged" ? "info" : "muted"),
      r.verdict ? pill(r.verdict, r.verdict === "ready" ? "ok" : "bad") : null,
    ),
    h(
      "p",
      { class: "meta" },
      `${ref.full_name}#${ref.number}`,
      o.author ? ` · by ${o.author}` : "",
      " · ",
      h("span", { class: "mono", "data-branches": "" }, `${o.head || r.head} → ${o.base || r.base}`),
      " · ",
      h("span", { class: "mono" }, String(o.head_sha || r.head_sha || "").slice(0, 7)),
    ),
    o.changed_files !== undefined
      ? h(
          "p",
          { class: "meta" },
          `${plural(o.commits ?? 0, "commit")}, ${plural(o.changed_files, "file")} `,
          h("span", { class: "add" }, `+${o.additions}`),
          " ",
          h("span", { class: "del" }, `−${o.deletions}`),
        )
      : null,
  );
}

function draw(card, ref) {
  const o = state.overview || {};
  const r = state.readiness || {};
  const [conflictKind, conflict] = conflictText();
  const open = (o.state || "open") === "open";
  const blocked = r.verdict && r.verdict !== "ready";
  card.show(
    h(
      "article",
      { class: "pr", "data-ready": state.loaded ? "" : null },
      header(ref),
      h(
        "div",
        { class: "actions" },
        o.url ? h("button", { id: "open", onclick: () => card.openLink(o.url) }, "Open pull request") : null,
        canRerun(card)
          ? h("button", { id: "rerun", disabled: state.busy, onclick: () => rerun(card, ref) }, "Rerun failed jobs")
          : null,
        card.can("request_pr_reviewers")
          ? h("span", { class: "review" },
              h("input", { id: "reviewers", placeholder: "reviewer login(s)", "aria-label": "reviewers", size: 16 }),
              h("button", { id: "request-review", disabled: state.busy, onclick: () => requestReview(card, ref) }, "Request review"),
            )
          : null,
        card.can("merge_pull_request") && h(
          "button",
          {
            id: "merge",
            class: "primary",
            disabled: state.busy || !open || blocked,
            title: blocked ? "Blocked: see the merge blockers" : "Merging asks for approval like any gated write",
            onclick: () => merge(card, ref),
          },
          "Merge",
        ),
      ),
      h("p", { id: "status", class: `status ${state.status?.kind || ""}`, role: "status" }, state.status?.text || ""),
      approvalBox(card),
      o.body
        ? h("details", { class: "body" }, h("summary", {}, "Description"), markdown(o.body))
        : null,
      checksSection(),
      reviewsSection(),
      h(
        "section",
        { id: "threads" },
        h("h2", {}, "Conversations"),
        r.unresolved_threads !== undefined
          ? h("p", { class: r.unresolved_threads ? "warn" : "ok" }, `${plural(r.unresolved_threads, "unresolved review thread")}`)
          : h("p", { class: "muted" }, "Unresolved threads: not known."),
      ),
      h("section", { id: "conflicts" }, h("h2", {}, "Conflicts"), h("p", { class: conflictKind }, conflict)),
      blockersSection(card, ref),
      state.missing ? h("p", { class: "warn" }, `Part of the card is missing: ${state.missing}`) : null,
    ),
  );
}

startCard("pr-card", async (card, data, input, result) => {
  const tool = "verdict" in data ? "check_merge_readiness" : "get_pr_overview";
  Object.assign(state, { overview: null, readiness: null, missing: null, status: null, approval: null, loaded: false });
  if (tool === "get_pr_overview") state.overview = data;
  else state.readiness = data;
  const ref = prRef(input, data);
  if (!ref) {
    card.show(h("p", { class: "error", "data-ready": "" }, "This result names no pull request."));
    return;
  }
  draw(card, ref);
  await complete(card, ref);
  state.loaded = true;
  draw(card, ref);
});
