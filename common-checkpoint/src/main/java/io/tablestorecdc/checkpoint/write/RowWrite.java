package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One change to apply to one row: put the whole row, update some columns (puts and column deletes),
 * or delete the row.
 *
 * <p>Semantics, as the service applies them: a PUT replaces the row with its columns; an UPDATE is
 * an upsert that sets its put columns and removes its deleted ones, and a row left with no
 * attribute column no longer exists; a DELETE removes the row. {@link #then} composes two changes
 * of one key into the one change with the same result.
 *
 * @param kind what the change does
 * @param key the row's primary key
 * @param puts the columns set, by name (all of the row's attributes for a PUT; none for a DELETE)
 * @param deletes the columns removed (UPDATE only)
 * @param sequence where the change stands among the changes of its key ({@link SequenceInfo#NONE}
 *     when the input has no order of its own: then arrival order counts)
 */
@PublicEvolving
public record RowWrite(
        Kind kind,
        RowKey key,
        SortedMap<String, CellValue> puts,
        SortedSet<String> deletes,
        SequenceInfo sequence) {

    /** What a change does to its row. */
    public enum Kind {
        PUT,
        UPDATE,
        DELETE
    }

    public RowWrite {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(sequence, "sequence");
        puts = Collections.unmodifiableSortedMap(new TreeMap<>(puts));
        deletes = Collections.unmodifiableSortedSet(new TreeSet<>(deletes));
        if (kind != Kind.UPDATE && !deletes.isEmpty()) {
            throw new IllegalArgumentException("Only an UPDATE deletes columns");
        }
        if (kind == Kind.DELETE && !puts.isEmpty()) {
            throw new IllegalArgumentException("A DELETE carries no column");
        }
        for (String column : deletes) {
            if (puts.containsKey(column)) {
                throw new IllegalArgumentException(
                        "Column " + column + " of row " + key + " is both set and deleted");
            }
        }
    }

    /** The row becomes exactly {@code columns}. */
    public static RowWrite put(RowKey key, Map<String, CellValue> columns, SequenceInfo sequence) {
        return new RowWrite(Kind.PUT, key, new TreeMap<>(columns), new TreeSet<>(), sequence);
    }

    /** The columns of {@code puts} are set, those of {@code deletes} removed, others kept. */
    public static RowWrite update(
            RowKey key, Map<String, CellValue> puts, Set<String> deletes, SequenceInfo sequence) {
        return new RowWrite(
                Kind.UPDATE, key, new TreeMap<>(puts), new TreeSet<>(deletes), sequence);
    }

    /** The row is removed. */
    public static RowWrite delete(RowKey key, SequenceInfo sequence) {
        return new RowWrite(Kind.DELETE, key, new TreeMap<>(), new TreeSet<>(), sequence);
    }

    /** An UPDATE that changes nothing; it needs no request. */
    public boolean isNoOp() {
        return kind == Kind.UPDATE && puts.isEmpty() && deletes.isEmpty();
    }

    /**
     * The one change whose result equals applying this change and then {@code later} (same key).
     * Its sequence is {@code later}'s.
     */
    public RowWrite then(RowWrite later) {
        if (!key.equals(later.key)) {
            throw new IllegalArgumentException(
                    "Changes of rows " + key + " and " + later.key + " do not compose");
        }
        if (later.kind != Kind.UPDATE) {
            return later;
        }
        return switch (kind) {
            case PUT -> putOrDelete(merged(puts, later), later.sequence);
            case DELETE -> putOrDelete(merged(new TreeMap<>(), later), later.sequence);
            case UPDATE -> {
                TreeSet<String> removed = new TreeSet<>(deletes);
                removed.removeAll(later.puts.keySet());
                removed.addAll(later.deletes);
                yield new RowWrite(Kind.UPDATE, key, merged(puts, later), removed, later.sequence);
            }
        };
    }

    private static TreeMap<String, CellValue> merged(Map<String, CellValue> base, RowWrite update) {
        TreeMap<String, CellValue> out = new TreeMap<>(base);
        out.putAll(update.puts);
        update.deletes.forEach(out::remove);
        return out;
    }

    // An update that leaves a row without attributes removes it (see the class comment).
    private RowWrite putOrDelete(TreeMap<String, CellValue> columns, SequenceInfo sequence) {
        return columns.isEmpty()
                ? delete(key, sequence)
                : new RowWrite(Kind.PUT, key, columns, new TreeSet<>(), sequence);
    }

    /** A rough size of this change in a request, for the 4 MB limit. */
    long estimatedBytes() {
        long bytes = 32 + key.estimatedBytes();
        for (Map.Entry<String, CellValue> e : puts.entrySet()) {
            bytes += e.getKey().length() + valueBytes(e.getValue()) + 24;
        }
        for (String column : deletes) {
            bytes += column.length() + 16;
        }
        return bytes;
    }

    static long valueBytes(CellValue value) {
        return switch (value.type()) {
            case STRING -> value.utf8().length;
            case BINARY -> value.binaryView().length;
            case INTEGER, DOUBLE -> 8;
            case BOOLEAN -> 1;
        };
    }

    /** The kind, key and column names; values are left out (they may be large or private). */
    @Override
    public String toString() {
        return kind
                + " "
                + key
                + (puts.isEmpty() ? "" : " set " + puts.keySet())
                + (deletes.isEmpty() ? "" : " delete " + deletes)
                + (sequence.isPresent() ? " at " + sequence : "");
    }
}
