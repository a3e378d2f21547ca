"""The windows and dialogs opened from the main window's menus, each kept here while shown.

Search, the compaction preview, settings, import, finding sessions and handing a
branch to an agent: each dialog is made when first asked for (its module loads
then, not with the window), kept alive here rather than on the window, and shut
down with the window.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from explorer.ui.window.view import WindowView

if TYPE_CHECKING:
    from explorer.app.sharing.handoff import Handoff
    from explorer.ui.importing.dialog import ImportDialog
    from explorer.ui.preview.window import CompactionPreview
    from explorer.ui.search_dialog import SearchDialog

OpenCompare = Callable[[list[int]], object]  # ids → a compare window opened (or refused)


class WindowDialogs:
    def __init__(self, view: WindowView, open_compare: OpenCompare) -> None:
        self.view = view
        self.open_compare = open_compare
        self.search_dialog: SearchDialog | None = None
        self.preview: CompactionPreview | None = None
        self.settings: QWidget | None = None
        self.importing: ImportDialog | None = None

    # -- search -----------------------------------------------------------------------
    def search(self, query: str | None = None) -> None:
        """The search over all conversations; ``query``, when given, is run at once."""
        from explorer.ui.search_dialog import SearchDialog

        if self.search_dialog is None:
            self.search_dialog = SearchDialog(self.view.store, self.view.window())
            self.search_dialog.hitChosen.connect(self.open_hit)
        self.search_dialog.show()
        self.search_dialog.raise_()
        if query is not None:
            self.search_dialog.query_edit.setText(query)
            self.search_dialog.run_query()

    def open_hit(self, conv_id: int, mid: int) -> None:
        self.view.open_conversation(conv_id)
        self.view.reveal(mid)  # an off-path hit shows as a branch preview

    # -- compaction preview ---------------------------------------------------------------
    def compaction_preview(self, rung: str | None = None) -> None:
        """The preview of the compaction plan (up to ``rung`` when given)."""
        from explorer.ui.preview.window import CompactionPreview

        conv = self.view.conversation_id
        if conv is None:
            return
        self.close_preview()
        window = CompactionPreview(self.view.store, conv, self.view.window())
        window.bind_redaction(self.view.redaction)
        window.applied.connect(lambda _record: self.view.refresh())
        window.bench.probed.connect(self._probed)
        self.preview = window
        if rung:
            window.set_options(rung=rung)
        window.show()

    def _probed(self, ids: list[int]) -> None:
        """The preview's probe answers, side by side with their costs (the test bench)."""
        self.view.refresh()
        self.open_compare(ids)

    def close_preview(self) -> None:
        if self.preview is not None:
            self.preview.shutdown()
            self.preview.close()
            self.preview = None

    # -- settings, import, sessions, hand-off ------------------------------------------------
    def settings_dialog(self) -> None:
        from explorer.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.view.window())
        dialog.setModal(True)
        dialog.show()
        self.settings = dialog

    def import_dialog(self) -> None:
        paths = self.view.questions.ask_open_paths("Import transcripts")
        if paths:
            self.start_import(paths)

    def start_import(self, paths: list[Path]) -> None:
        from explorer.ui.importing.dialog import start_import_dialog  # with the first import

        dialog = start_import_dialog(self.view.store, paths, self.view.window())
        dialog.importFinished.connect(lambda _report: self.view.refresh())
        dialog.conversationChosen.connect(self.view.open_conversation)
        self.importing = dialog

    def find_conversations(self) -> None:
        """The agents' session folders, found off-thread; the ticked ones are synced."""
        from explorer.ui.importing.sources_dialog import SourcesDialog

        dialog = SourcesDialog(self.view.store, self.view.tasks, self.view.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    def continue_in(self, mid: int, agent: str) -> None:
        """Hand the branch ending at ``mid`` back to ``agent`` as a new session."""
        from explorer.app.sharing.handoff import handoff
        from explorer.ui.sharing.handoff_dialog import HandoffDialog

        conv = self.view.conversation_id
        if conv is None:
            return
        store, parent = self.view.store, self.view.window()

        def shown(done: Handoff) -> None:
            dialog = HandoffDialog(done, parent)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.show()

        self.view.tasks.run(lambda _ticket: handoff(store, conv, agent, at=mid), on_done=shown,
                            on_failed=lambda e: self.view.questions.fail(str(e)))

    def shutdown(self) -> None:
        """The window closes: stop the preview's workers and the search in flight."""
        if self.preview is not None:
            self.preview.shutdown()
        if self.search_dialog is not None:
            self.search_dialog.shutdown()
