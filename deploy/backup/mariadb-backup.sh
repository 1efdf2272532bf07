#!/bin/sh
# Online backup of a MariaDB/MySQL instance while it serves (docs/operations.md, "Backup and restore").
# Usage: mariadb-backup.sh BACKUP_FILE DATABASE [connection options: -h HOST -P PORT -u USER …]
set -eu
backup=$1
database=$2
shift 2
# One consistent InnoDB snapshot (a read view; no table locks), read row by row. The master key is not
# in the database: keep it apart.
mariadb-dump "$@" --single-transaction --quick --hex-blob "$database" >"$backup.partial"
mv "$backup.partial" "$backup"
