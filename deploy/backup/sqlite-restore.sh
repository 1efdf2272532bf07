#!/bin/sh
# Restores a backup made by sqlite-backup.sh into a data directory whose service is stopped
# (docs/operations.md, "Backup and restore"). Usage: sqlite-restore.sh BACKUP_FILE DATA_DIR
set -eu
backup=$1
data_dir=$2
install -d -m 0700 "$data_dir"
# A WAL left beside the file being replaced belongs to the old database: SQLite would replay it into the restored one.
rm -f "$data_dir/portcullis.sqlite-wal" "$data_dir/portcullis.sqlite-shm"
cp "$backup" "$data_dir/portcullis.sqlite"
chmod 0600 "$data_dir/portcullis.sqlite"
