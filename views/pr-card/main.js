// Pull request card: get_pr_overview and check_merge_readiness.
import { h, plural, startCard } from "../shared/card.js";

function render(card, data) {
  card.show(
    h(
      "article",
      { class: "pr" },
      h("h1", { class: "title" }, data.title ?? `#${data.number}`),
      h("p", { class: "meta" }, `#${data.number} · ${data.head} → ${data.base}`),
      data.checks ? h("p", { class: "checks" }, plural(data.checks.total, "check")) : null,
    ),
  );
}

startCard("pr-card", render);
