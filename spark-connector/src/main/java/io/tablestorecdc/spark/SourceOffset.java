package io.tablestorecdc.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * The Spark offset of a source: each table's {@link TablestoreOffset} (its batch token and the plan
 * of the batch that ends at it).
 *
 * <p>A source of one table writes that table's offset alone, exactly as it always has: {@code
 * {"batch":3,"read":{"p-1":1000},"token":"<uuid>","version":1}}. A source of several tables (a list
 * or a pattern) writes every table's, by name, sorted: {@code {"tables":{"orders":{"batch":3,
 * "read":{"p-1":1000},"token":"<uuid>"},"users":{...}},"version":1}}. Each table has its own
 * tunnel, meta rows and batch sequence; a table that a batch does not read keeps its offset
 * unchanged and writes no meta rows, so that the meta rows of a batch grow with the channels it
 * reads, not with the tables the source holds. Spark logs the whole offset before it runs the
 * batch, so the tables of a batch commit together: a restart re-runs the batch from the logged
 * offset for every table.
 *
 * @param tables each table's offset, by table name
 */
record SourceOffset(SortedMap<String, TablestoreOffset> tables) {

    private static final ObjectMapper JSON = new ObjectMapper();

    SourceOffset {
        tables = Collections.unmodifiableSortedMap(new TreeMap<>(tables));
    }

    /** The offset of a source of one table. */
    static SourceOffset of(String table, TablestoreOffset offset) {
        return new SourceOffset(new TreeMap<>(Map.of(table, offset)));
    }

    /**
     * This offset as Spark logs it: the one table's own form when {@code single}, else the form of
     * several tables.
     */
    Offset toSpark(boolean single) {
        if (single) {
            return tables.values().iterator().next().toSpark();
        }
        return new SparkOffset(this);
    }

    /**
     * The offset of a source whose tables are {@code selection} ({@code single} when it reads one
     * table, {@code table}), from one Spark hands back.
     *
     * @throws IllegalArgumentException when the checkpoint was written by a source of the other
     *     kind (one table against several), naming the fix
     */
    static SourceOffset from(Offset offset, boolean single, String table) {
        if (offset instanceof SparkOffset ours && !single) {
            return ours.offset;
        }
        if (offset instanceof TablestoreOffset.SparkOffset ours && single) {
            return of(table, ours.offset());
        }
        return fromJson(offset.json(), single, table);
    }

    /** Parses a logged offset; see {@link #from}. */
    static SourceOffset fromJson(String json, boolean single, String table) {
        JsonNode tables = tablesOf(json);
        if (single) {
            if (tables != null) {
                throw kindChanged(
                        "several tables (table.pattern or a list in table.name)",
                        "one table (table.name=" + table + ")");
            }
            return of(table, TablestoreOffset.fromJson(json));
        }
        if (tables == null) {
            TablestoreOffset.fromJson(json); // a foreign offset reads as one
            throw kindChanged("one table", "several tables");
        }
        TablestoreOffset.checkVersion(json);
        SortedMap<String, TablestoreOffset> offsets = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = tables.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            ObjectNode one = e.getValue().deepCopy();
            one.put("version", TablestoreOffset.VERSION);
            offsets.put(e.getKey(), TablestoreOffset.fromJson(one.toString()));
        }
        return new SourceOffset(offsets);
    }

    /** The {@code tables} object of the form of several tables; null for any other JSON. */
    private static JsonNode tablesOf(String json) {
        try {
            JsonNode tables = json == null ? null : JSON.readTree(json).path("tables");
            return tables != null && tables.isObject() ? tables : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The form of several tables, sorted by table name. */
    String json() {
        ObjectNode node = JSON.createObjectNode();
        ObjectNode byTable = node.putObject("tables");
        tables.forEach(
                (table, offset) -> {
                    ObjectNode one = byTable.putObject(table);
                    one.put("batch", offset.batch());
                    ObjectNode channels = one.putObject("read");
                    offset.read().forEach(channels::put);
                    one.put("token", offset.token().toString());
                });
        node.put("version", TablestoreOffset.VERSION);
        return node.toString();
    }

    private static IllegalArgumentException kindChanged(String written, String now) {
        return new IllegalArgumentException(
                "The Spark checkpoint was written by a tablestore-cdc source of "
                        + written
                        + ", but this query reads "
                        + now
                        + ": a checkpoint keeps the kind of source it was started with. Use a"
                        + " new checkpoint location (the tunnels keep their progress on the"
                        + " server; set tunnel.start for where a new tunnel starts).");
    }

    /** Spark's view: equal when the JSON is equal. */
    static final class SparkOffset extends Offset {
        private final SourceOffset offset;
        private final String json;

        SparkOffset(SourceOffset offset) {
            this.offset = offset;
            this.json = offset.json();
        }

        @Override
        public String json() {
            return json;
        }
    }
}
