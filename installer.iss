; Windows installer for Conversation Explorer (Inno Setup 6.3 or later).
;
; Built by `python packaging/build.py`, which takes the version from pyproject.toml:
;   ISCC /DAppVersion=0.1.0 installer.iss
; It packs the PyInstaller bundle in dist\conversation-explorer (override with /DBundleDir=...)
; into dist\conversation-explorer-<version>-setup.exe (override with /DOutputDir=...).
;
; Installs for the current user by default (no administrator rights); the first page lets a
; person choose an install for all users instead. The database is never installed or removed
; here: it lives in the user's data folder (%LOCALAPPDATA%\conversation-explorer\explorer.db),
; outside {app}, and an uninstall leaves it where it is.

#ifndef AppVersion
  #error The version is required: ISCC /DAppVersion=x.y.z installer.iss
#endif
#ifndef BundleDir
  #define BundleDir "dist\conversation-explorer"
#endif
#ifndef OutputDir
  #define OutputDir "dist"
#endif
#define AppName "Conversation Explorer"
#define AppExe "convo.exe"

[Setup]
; The AppId ties every version together so each one upgrades the last: never change it.
AppId={{F364C838-8D25-48CC-9FBA-9D373236346F}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Conversation Explorer contributors
VersionInfoVersion={#AppVersion}
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#OutputDir}
OutputBaseFilename=conversation-explorer-{#AppVersion}-setup
SetupIconFile=resources\icons\app.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
CloseApplications=yes
Compression=lzma2
SolidCompression=yes
WizardStyle=modern

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An upgrade replaces the bundle's internal folder whole: no library of an older version is left
; behind to be loaded by the new one.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Only the program folder; the user's database lives elsewhere and stays.
Type: dirifempty; Name: "{app}"
