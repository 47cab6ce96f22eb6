package io.tablestorecdc.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablestorecdc.checkpoint.model.BatchToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The query's first batch token, kept in the source's checkpoint folder; for a source of several
 * tables, each table's (in a file of its own name, {@value #TABLES_FILE_NAME}).
 *
 * <p>Spark logs no start offset for its first batch: after a restart it asks {@code
 * initialOffset()} again, which must then return the same token (as Spark's Kafka source keeps its
 * initial offsets next to the offset log).
 */
final class InitialTokenFile {

    static final String FILE_NAME = "tablestore-cdc-initial-token.json";
    static final String TABLES_FILE_NAME = "tablestore-cdc-initial-tokens.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;
    private final Configuration conf;

    InitialTokenFile(String checkpointLocation, Configuration conf) {
        this(checkpointLocation, conf, FILE_NAME);
    }

    private InitialTokenFile(String checkpointLocation, Configuration conf, String fileName) {
        this.path = new Path(checkpointLocation, fileName);
        this.conf = conf;
    }

    /** The file of a source of several tables: each table's first token. */
    static InitialTokenFile ofTables(String checkpointLocation, Configuration conf) {
        return new InitialTokenFile(checkpointLocation, conf, TABLES_FILE_NAME);
    }

    /**
     * Each table's stored token; empty when none was written (or a crash cut the write short, which
     * can only happen before Spark logged any batch).
     */
    Map<String, BatchToken> readTables() {
        Optional<String> json = readText();
        Map<String, BatchToken> tokens = new TreeMap<>();
        if (json.isEmpty()) {
            return tokens;
        }
        try {
            JsonNode node = JSON.readTree(json.get());
            for (Iterator<Map.Entry<String, JsonNode>> it = node.path("tables").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                tokens.put(e.getKey(), BatchToken.parse(e.getValue().asText()));
            }
            return tokens;
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return new TreeMap<>();
        }
    }

    /** Writes every table's first token atomically. */
    void writeTables(Map<String, BatchToken> tokens) {
        ObjectNode node = JSON.createObjectNode();
        ObjectNode tables = node.putObject("tables");
        new TreeMap<>(tokens).forEach((table, token) -> tables.put(table, token.toString()));
        writeText(node.toString(), String.valueOf(tokens.hashCode()));
    }

    private Optional<String> readText() {
        try {
            FileSystem fs = path.getFileSystem(conf);
            if (!fs.exists(path)) {
                return Optional.empty();
            }
            try (InputStream in = fs.open(path)) {
                return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw failed("read", e);
        }
    }

    /**
     * The stored token; empty when none was written (or a crash cut the write short, which can only
     * happen before Spark logged any batch, so a new token is safe then).
     */
    Optional<BatchToken> read() {
        try {
            FileSystem fs = path.getFileSystem(conf);
            if (!fs.exists(path)) {
                return Optional.empty();
            }
            try (InputStream in = fs.open(path)) {
                String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                return Optional.of(BatchToken.fromJson(json));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        } catch (IOException e) {
            throw failed("read", e);
        }
    }

    /** Writes the token atomically (a temporary file renamed into place). */
    void write(BatchToken token) {
        writeText(token.toJson(), token.toString());
    }

    private void writeText(String text, String tempSuffix) {
        try {
            FileSystem fs = path.getFileSystem(conf);
            Path temp =
                    new Path(path.getParent(), "." + path.getName() + "." + tempSuffix + ".tmp");
            try (OutputStream out = fs.create(temp, true)) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
            fs.delete(path, false);
            if (!fs.rename(temp, path)) {
                throw new IOException("rename of " + temp + " to " + path + " failed");
            }
        } catch (IOException e) {
            throw failed("write", e);
        }
    }

    private UncheckedIOException failed(String what, IOException e) {
        return new UncheckedIOException(
                "Could not "
                        + what
                        + " the first batch token at "
                        + path
                        + ": check that the checkpoint location is writable",
                e);
    }
}
