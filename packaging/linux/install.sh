#!/bin/sh
# Install Conversation Explorer for the current user; no root needed.
#   ./install.sh                 installs under ~/.local
#   PREFIX=/opt/convo ./install.sh   installs somewhere else (write access required)
# Running it again upgrades: the program folder is replaced whole. Your database is not touched.
set -eu

APP_ID=io.github.conversation_explorer.ConversationExplorer
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-"$HOME/.local"}
DEST="$PREFIX/lib/conversation-explorer"
SHARE="$PREFIX/share"
ICONS="$HERE/conversation-explorer/_internal/resources/icons"

if [ ! -x "$HERE/conversation-explorer/convo" ]; then
    echo "install.sh: no conversation-explorer/convo next to this script" >&2
    exit 1
fi

rm -rf "$DEST"
mkdir -p "$DEST" "$PREFIX/bin" "$SHARE/applications" "$SHARE/metainfo" \
    "$SHARE/icons/hicolor/scalable/apps"
cp -R "$HERE/conversation-explorer/." "$DEST/"
ln -sf "$DEST/convo" "$PREFIX/bin/convo"

sed -e "s|^Exec=convo|Exec=\"$DEST/convo\"|" -e "s|^TryExec=convo|TryExec=$DEST/convo|" \
    "$HERE/$APP_ID.desktop" > "$SHARE/applications/$APP_ID.desktop"
cp "$HERE/$APP_ID.metainfo.xml" "$SHARE/metainfo/$APP_ID.metainfo.xml"
cp "$ICONS/app.svg" "$SHARE/icons/hicolor/scalable/apps/$APP_ID.svg"
for size in 16 32 48 128 256; do
    mkdir -p "$SHARE/icons/hicolor/${size}x${size}/apps"
    cp "$ICONS/app-$size.png" "$SHARE/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done

command -v update-desktop-database >/dev/null 2>&1 \
    && update-desktop-database -q "$SHARE/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 \
    && gtk-update-icon-cache -q -t "$SHARE/icons/hicolor" || true

echo "installed in $DEST"
echo "start it from your applications menu, or run: $PREFIX/bin/convo"
