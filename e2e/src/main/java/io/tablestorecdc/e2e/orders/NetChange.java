package io.tablestorecdc.e2e.orders;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The net effect of a run of changes to one row, so a batch writes each row once (Tablestore's
 * BatchWriteRow takes a row at most once per request).
 *
 * <p>Follows Tablestore's row semantics: a PUT replaces the row; an UPDATE is an upsert that
 * touches only its columns; a row left without attribute columns does not exist.
 *
 * @param kind what to write
 * @param puts columns to set (the whole row for {@link Kind#REPLACE})
 * @param deletes columns to remove (only for {@link Kind#PATCH})
 */
public record NetChange(Kind kind, Map<String, Object> puts, Set<String> deletes) {

    /** How the net change is written. */
    public enum Kind {
        /** PutRow: the row becomes exactly {@code puts}. */
        REPLACE,
        /** UpdateRow: set {@code puts}, remove {@code deletes}, keep the other columns. */
        PATCH,
        /** DeleteRow. */
        DELETE
    }

    public NetChange {
        puts = Map.copyOf(puts);
        deletes = Set.copyOf(deletes);
    }

    /** The net change of {@code change} alone. */
    public static NetChange of(OrderChange change) {
        return switch (change.action) {
            case PUT -> replace(change.puts());
            case UPDATE -> new NetChange(Kind.PATCH, change.puts(), Set.copyOf(change.deletes()));
            case DELETE -> new NetChange(Kind.DELETE, Map.of(), Set.of());
        };
    }

    /** This net change followed by {@code next}. */
    public NetChange then(OrderChange next) {
        return switch (next.action) {
            case PUT, DELETE -> of(next);
            case UPDATE -> thenUpdate(next);
        };
    }

    private NetChange thenUpdate(OrderChange next) {
        Map<String, Object> columns = new LinkedHashMap<>(kind == Kind.DELETE ? Map.of() : puts);
        next.deletes().forEach(columns::remove);
        columns.putAll(next.puts());
        if (kind != Kind.PATCH) {
            return replace(columns); // the row's full content is known
        }
        Set<String> removed = new TreeSet<>(deletes);
        removed.addAll(next.deletes());
        removed.removeAll(next.puts().keySet());
        return new NetChange(Kind.PATCH, columns, removed);
    }

    private static NetChange replace(Map<String, Object> columns) {
        return columns.isEmpty()
                ? new NetChange(Kind.DELETE, Map.of(), Set.of())
                : new NetChange(Kind.REPLACE, columns, Set.of());
    }
}
