"""An import-linter contract type (pyproject.toml, `contract_types`): each tool module imports
only its own domain's service and the shared kernel.

A tool module's domain is its first name below the tools package (`tools/issues.py`:
issues; `tools/pulls/automation.py`: pulls); it may import the service of that name
(`services/issues`, `services/pulls/…`), the shared services (`services/shared`), its
domain's other tool modules and the tools' own shared modules (those starting with an
underscore: `tools/_bindings.py`), which in turn may import only the shared services. The
domains are read from the tree, so a new domain needs no new contract. Imports of anything
outside the two packages are other contracts' business.
"""

from __future__ import annotations

from typing import Any

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output
from importlinter.application import contract_utils


class DomainContract(Contract):
    type_name = "domains"

    tools = fields.StringField()
    services = fields.StringField()
    shared = fields.StringField()  # the shared services' package, below `services`
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(
        contract_utils.AlertLevel, default=contract_utils.AlertLevel.ERROR
    )

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        tools = str(self.tools)
        broken: list[dict[str, Any]] = []
        for importer in sorted(graph.find_descendants(tools)):
            domain = _below(importer, tools)
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if not self._allowed(domain, imported):
                    details = graph.get_import_details(importer=importer, imported=imported)
                    lines = tuple(d["line_number"] for d in details)
                    broken.append({"importer": importer, "imported": imported, "lines": lines})
        return ContractCheck(
            kept=not broken,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"broken": broken},
        )

    def _allowed(self, domain: str, imported: str) -> bool:
        tools, services = str(self.tools), str(self.services)
        if imported.startswith(services + "."):
            return _below(imported, services) in {domain, str(self.shared)}
        if imported.startswith(tools + "."):
            other = _below(imported, tools)
            return other.startswith("_") or (other == domain and not domain.startswith("_"))
        return True  # the packages themselves, and everything outside them

    def render_broken_contract(self, check: ContractCheck) -> None:
        for link in check.metadata["broken"]:
            lines = ", ".join(f"l.{n}" for n in link["lines"])
            output.print_error(f"{link['importer']} -> {link['imported']} ({lines})", bold=False)
        output.new_line()
        output.print(
            "A tool module reaches another domain's code through its own domain's service "
            "(which may import any service), or the code moves to services/shared.",
        )


def _below(module: str, package: str) -> str:
    """The first name of `module` below `package`."""
    return module.removeprefix(package + ".").split(".")[0]
