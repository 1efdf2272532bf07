#!/bin/sh
# Online backup of a SQLite instance while it serves (docs/operations.md, "Backup and restore").
# Usage: sqlite-backup.sh DATA_DIR BACKUP_FILE
set -eu
data_dir=$1
backup=$2
# SQLite's online backup API copies one consistent snapshot, what the WAL holds included; in WAL mode
# the service's writes go on meanwhile. The master key is not in the copy: keep it apart.
sqlite3 "$data_dir/portcullis.sqlite" ".timeout 10000" ".backup '$backup'"
test "$(sqlite3 "$backup" 'PRAGMA integrity_check')" = ok
