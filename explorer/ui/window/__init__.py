"""The main window and its controllers: menus, right-click, command bar, selection, list."""
