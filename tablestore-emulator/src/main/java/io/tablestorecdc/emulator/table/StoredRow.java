package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A stored row: its primary key and the latest version of each attribute column (the emulator keeps
 * one version per cell), sorted by column name.
 */
record StoredRow(PrimaryKey primaryKey, SortedMap<String, Column> columns) {

    StoredRow {
        columns = Collections.unmodifiableSortedMap(new TreeMap<>(columns));
    }

    Optional<Column> column(String name) {
        return Optional.ofNullable(columns.get(name));
    }

    /** The row as the SDK sees it: every column, primary key included. */
    Row toRow() {
        return new Row(primaryKey, List.copyOf(columns.values()));
    }

    /**
     * The size a read of this row counts (see {@link CapacityUnits}): its primary key and the
     * columns among {@code columnsToGet} it holds (all its columns when empty).
     */
    long bytesRead(Set<String> columnsToGet) {
        return CapacityUnits.rowBytes(
                primaryKey,
                columnsToGet.isEmpty()
                        ? columns.values()
                        : columns.values().stream()
                                .filter(c -> columnsToGet.contains(c.getName()))
                                .toList());
    }

    /**
     * The row restricted to {@code columnsToGet} (all when empty). The primary key always comes
     * back (the SDK rejects rows without one); a row holding none of the named columns, where no
     * primary-key column was named either, counts as absent.
     */
    Optional<Row> project(Set<String> columnsToGet) {
        if (columnsToGet.isEmpty()) {
            return Optional.of(toRow());
        }
        List<Column> attrs =
                columns.values().stream().filter(c -> columnsToGet.contains(c.getName())).toList();
        boolean namesKey =
                primaryKey.getPrimaryKeyColumnsMap().keySet().stream()
                        .anyMatch(columnsToGet::contains);
        if (attrs.isEmpty() && !namesKey) {
            return Optional.empty();
        }
        return Optional.of(new Row(primaryKey, attrs));
    }
}
