#!/bin/sh
# Remove what install.sh installed (same PREFIX). Your conversations stay: the database lives in
# your data folder (~/.local/share/conversation-explorer/explorer.db), which is left alone.
set -eu

APP_ID=io.github.conversation_explorer.ConversationExplorer
PREFIX=${PREFIX:-"$HOME/.local"}
SHARE="$PREFIX/share"

rm -rf "$PREFIX/lib/conversation-explorer"
if [ -L "$PREFIX/bin/convo" ]; then
    rm -f "$PREFIX/bin/convo"
fi
rm -f "$SHARE/applications/$APP_ID.desktop" "$SHARE/metainfo/$APP_ID.metainfo.xml" \
    "$SHARE/icons/hicolor/scalable/apps/$APP_ID.svg"
for size in 16 32 48 128 256; do
    rm -f "$SHARE/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done

command -v update-desktop-database >/dev/null 2>&1 \
    && update-desktop-database -q "$SHARE/applications" || true

echo "uninstalled; your conversations were kept in ${XDG_DATA_HOME:-$HOME/.local/share}/conversation-explorer/"
