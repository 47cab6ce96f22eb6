package io.tablestorecdc.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * The Spark offset of this source: a batch token plus the plan of the batch that ends at it.
 *
 * <p>The meta table holds the channel positions under the token. The plan (which channels the batch
 * reads, with each one's record cap) is in the offset because Spark writes the offset log before it
 * plans the batch: a batch re-run after a restart plans from the logged offset and so reads exactly
 * the channels of its first run. JSON with sorted keys and a {@code version} field: {@code
 * {"batch":3,"read":{"p-1":1000},"token":"<uuid>","version":1}}.
 *
 * @param token the batch token the meta snapshot is stored under
 * @param batch the sequence of the snapshot (0 for the first token of a query)
 * @param read channel id to the most records the batch reads from it ({@value #UNCAPPED} for no
 *     cap)
 */
@Internal
public record TablestoreOffset(BatchToken token, long batch, SortedMap<String, Long> read) {

    /** Version of the JSON form. */
    public static final int VERSION = 1;

    /** Cap value for a channel read without a record cap. */
    public static final long UNCAPPED = -1L;

    private static final ObjectMapper JSON = new ObjectMapper();

    public TablestoreOffset {
        Objects.requireNonNull(token, "token");
        if (batch < 0) {
            throw new IllegalArgumentException("batch must be >= 0 but was " + batch);
        }
        read = Collections.unmodifiableSortedMap(new TreeMap<>(read));
    }

    /** The first offset of a query: a seeded snapshot that no batch read into. */
    public static TablestoreOffset initial(BatchToken token) {
        return new TablestoreOffset(token, 0L, new TreeMap<>());
    }

    /** Our offset from one Spark hands back (deserialized by us, or only its JSON). */
    public static TablestoreOffset from(Offset offset) {
        return offset instanceof SparkOffset ours ? ours.offset() : fromJson(offset.json());
    }

    /** This offset as Spark's {@link Offset}. */
    public SparkOffset toSpark() {
        return new SparkOffset(this);
    }

    public String json() {
        ObjectNode node = JSON.createObjectNode();
        node.put("batch", batch);
        ObjectNode channels = node.putObject("read");
        read.forEach(channels::put);
        node.put("token", token.toString());
        node.put("version", VERSION);
        return node.toString();
    }

    /**
     * Parses {@link #json()}.
     *
     * @throws IllegalArgumentException when the JSON is not an offset of this source, or of a newer
     *     version
     */
    public static TablestoreOffset fromJson(String json) {
        return parseV1(json, checkVersion(json));
    }

    /**
     * The offset JSON (of one table or of several), checked to be of the version this build reads.
     *
     * @throws IllegalArgumentException when it is not JSON, has no version, or a newer one
     */
    static JsonNode checkVersion(String json) {
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw corrupt(json, "it is not JSON");
        }
        if (node == null || !node.isObject() || !node.path("version").isInt()) {
            throw corrupt(json, "it has no version field");
        }
        int version = node.get("version").asInt();
        if (version != VERSION) {
            throw new IllegalArgumentException(
                    "The Spark checkpoint holds a tablestore-cdc offset of version "
                            + version
                            + ", but this build reads only version "
                            + VERSION
                            + ": it was written by a newer tablestore-cdc; upgrade the connector.");
        }
        return node;
    }

    private static TablestoreOffset parseV1(String json, JsonNode node) {
        if (!node.path("token").isTextual() || !node.path("batch").canConvertToLong()) {
            throw corrupt(json, "token or batch is missing");
        }
        SortedMap<String, Long> read = new TreeMap<>();
        JsonNode channels = node.path("read");
        if (!channels.isObject()) {
            throw corrupt(json, "read is missing");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = channels.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            read.put(e.getKey(), e.getValue().asLong());
        }
        try {
            BatchToken token = BatchToken.parse(node.get("token").asText());
            return new TablestoreOffset(token, node.get("batch").asLong(), read);
        } catch (IllegalArgumentException e) {
            throw corrupt(json, e.getMessage());
        }
    }

    private static IllegalArgumentException corrupt(String json, String why) {
        String shown =
                json == null ? "null" : json.length() > 200 ? json.substring(0, 200) + "..." : json;
        return new IllegalArgumentException(
                "The Spark checkpoint holds an offset that is not a tablestore-cdc offset ("
                        + why
                        + "): "
                        + shown
                        + ". Was the checkpoint location written by another source? Use the"
                        + " checkpoint location of this query, or a new one.");
    }

    /** Spark's view: equal when the JSON is equal. */
    public static final class SparkOffset extends Offset {
        private final TablestoreOffset offset;
        private final String json;

        SparkOffset(TablestoreOffset offset) {
            this.offset = offset;
            this.json = offset.json();
        }

        public TablestoreOffset offset() {
            return offset;
        }

        @Override
        public String json() {
            return json;
        }
    }
}
