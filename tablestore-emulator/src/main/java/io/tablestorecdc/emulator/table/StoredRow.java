package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A stored row: its primary key and the versions kept of each attribute column, sorted by column
 * name; each column's versions newest first, one per timestamp, never empty.
 */
record StoredRow(PrimaryKey primaryKey, SortedMap<String, List<Column>> columns) {

    /** Newest first. */
    static final Comparator<Column> NEWEST_FIRST =
            Comparator.comparingLong(Column::getTimestamp).reversed();

    StoredRow {
        SortedMap<String, List<Column>> copy = new TreeMap<>();
        columns.forEach(
                (name, versions) -> {
                    if (!versions.isEmpty()) {
                        copy.put(name, List.copyOf(versions));
                    }
                });
        columns = Collections.unmodifiableSortedMap(copy);
    }

    /** The newest version of the column, if the row holds it. */
    Optional<Column> column(String name) {
        return Optional.ofNullable(columns.get(name)).map(v -> v.get(0));
    }

    /** The versions of the column, newest first; empty if the row does not hold it. */
    List<Column> versions(String name) {
        return columns.getOrDefault(name, List.of());
    }

    /**
     * The row with, of each column, only the versions {@code read} picks (columns left empty go).
     */
    StoredRow select(ReadVersions read) {
        if (read.picksAll(columns.values())) {
            return this; // as with one version per column, read with max versions 1
        }
        SortedMap<String, List<Column>> picked = new TreeMap<>();
        columns.forEach((name, versions) -> picked.put(name, read.pick(versions)));
        return new StoredRow(primaryKey, picked);
    }

    /** The row with each column's newest {@code maxVersions} versions. */
    StoredRow trim(int maxVersions) {
        boolean within = columns.values().stream().allMatch(v -> v.size() <= maxVersions);
        if (within) {
            return this;
        }
        SortedMap<String, List<Column>> kept = new TreeMap<>();
        columns.forEach(
                (name, versions) ->
                        kept.put(
                                name, versions.subList(0, Math.min(versions.size(), maxVersions))));
        return new StoredRow(primaryKey, kept);
    }

    /**
     * The row as the SDK sees it: every version of every column (by name, newest first, the order
     * of {@code Row#getColumns}).
     */
    Row toRow() {
        return new Row(primaryKey, flatten(columns, Set.of()));
    }

    /**
     * The size a read of this row counts (see {@link CapacityUnits}): its primary key and every
     * version it holds of the columns among {@code columnsToGet} (all its columns when empty).
     */
    long bytesRead(Set<String> columnsToGet) {
        return CapacityUnits.rowBytes(primaryKey, flatten(columns, columnsToGet));
    }

    /**
     * The row restricted to {@code columnsToGet} (all when empty). The primary key always comes
     * back (the SDK rejects rows without one); a row left with no column, where no primary-key
     * column was named either, counts as absent, unless it never held one and no column was named
     * (a row of only a primary key).
     */
    Optional<Row> project(Set<String> columnsToGet, boolean heldColumns) {
        List<Column> attrs = flatten(columns, columnsToGet);
        if (attrs.isEmpty() && (heldColumns || !columnsToGet.isEmpty())) {
            boolean namesKey =
                    primaryKey.getPrimaryKeyColumnsMap().keySet().stream()
                            .anyMatch(columnsToGet::contains);
            if (!namesKey) {
                return Optional.empty();
            }
        }
        return Optional.of(new Row(primaryKey, attrs));
    }

    private static List<Column> flatten(Map<String, List<Column>> columns, Set<String> only) {
        List<Column> out = new ArrayList<>();
        columns.forEach(
                (name, versions) -> {
                    if (only.isEmpty() || only.contains(name)) {
                        out.addAll(versions);
                    }
                });
        return out;
    }
}
