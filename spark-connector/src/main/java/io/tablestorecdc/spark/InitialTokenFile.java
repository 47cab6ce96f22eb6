package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.BatchToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The query's first batch token, kept in the source's checkpoint folder.
 *
 * <p>Spark logs no start offset for its first batch: after a restart it asks {@code
 * initialOffset()} again, which must then return the same token (as Spark's Kafka source keeps its
 * initial offsets next to the offset log).
 */
final class InitialTokenFile {

    static final String FILE_NAME = "tablestore-cdc-initial-token.json";

    private final Path path;
    private final Configuration conf;

    InitialTokenFile(String checkpointLocation, Configuration conf) {
        this.path = new Path(checkpointLocation, FILE_NAME);
        this.conf = conf;
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
        try {
            FileSystem fs = path.getFileSystem(conf);
            Path temp = new Path(path.getParent(), "." + FILE_NAME + "." + token + ".tmp");
            try (OutputStream out = fs.create(temp, true)) {
                out.write(token.toJson().getBytes(StandardCharsets.UTF_8));
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
