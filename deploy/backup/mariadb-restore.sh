#!/bin/sh
# Restores a dump made by mariadb-backup.sh into a new, empty database (docs/operations.md,
# "Backup and restore"). Usage: mariadb-restore.sh BACKUP_FILE DATABASE [connection options]
set -eu
backup=$1
database=$2
shift 2
mariadb "$@" -e "CREATE DATABASE \`$database\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
mariadb "$@" "$database" <"$backup"
