package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.TransientErrors;
import io.tablestorecdc.checkpoint.write.TableWriteClient.RowOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Buffers row changes for one table and writes them with BatchWriteRow.
 *
 * <p>The buffer holds at most {@link WriteSettings#maxRows()} keys and {@link
 * WriteSettings#maxBytes()} estimated bytes: {@link #write} flushes, on the caller's thread, once
 * the buffer holds that many keys or before a change that would pass the byte limit, so a writer
 * slower than its input holds the input back instead of queueing it. Changes of one key coalesce
 * ({@link RowWrite#then}), so a request never holds a key twice. Rows the service refuses for a
 * passing reason are sent again, alone, after a doubling wait, up to {@link
 * WriteSettings#maxRetries()} times; any other refusal fails the flush with the row's key and the
 * service's code and message.
 *
 * <p>Not thread-safe: one thread calls it (the engines' writer tasks do).
 */
@Internal
public final class BufferedTableWriter implements AutoCloseable {

    /** Waits between retries; tests record the waits instead. */
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(BufferedTableWriter.class);

    private final TableWriteClient client;
    private final String table;
    private final WriteSettings settings;
    private final WriteCounters counters;
    private final Sleeper sleeper;
    private final KeyedChanges buffer = new KeyedChanges();
    private long bufferedSinceNanos;

    public BufferedTableWriter(
            TableWriteClient client,
            String table,
            WriteSettings settings,
            WriteCounters counters,
            Sleeper sleeper) {
        this.client = Objects.requireNonNull(client, "client");
        this.table = Objects.requireNonNull(table, "table");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.counters = Objects.requireNonNull(counters, "counters");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    /** A writer that waits with {@link Thread#sleep}. */
    public BufferedTableWriter(
            TableWriteClient client, String table, WriteSettings settings, WriteCounters counters) {
        this(client, table, settings, counters, d -> Thread.sleep(d.toMillis()));
    }

    /**
     * Buffers {@code change}; flushes before it when it would pass the byte limit, and after it
     * when the buffer holds the maximum number of keys.
     *
     * @throws TablestoreWriteException when the change cannot be written at all (too many columns,
     *     too large for one request), or when the flush it caused fails
     */
    public void write(RowWrite change) {
        if (change.kind() == RowWrite.Kind.DELETE && settings.ignoreDelete()) {
            counters.deleteIgnored();
            return;
        }
        long bytes = checkWritable(change);
        if (buffer.estimatedBytes() + bytes > settings.maxBytes()) {
            flush();
        }
        if (buffer.isEmpty()) {
            bufferedSinceNanos = System.nanoTime();
        }
        buffer.add(change);
        if (buffer.keys() >= settings.maxRows()) {
            flush();
        }
    }

    /** Keys buffered and not yet written. */
    public int bufferedKeys() {
        return buffer.keys();
    }

    /** How long the oldest buffered change has waited; zero when nothing is buffered. */
    public Duration bufferedFor() {
        return buffer.isEmpty()
                ? Duration.ZERO
                : Duration.ofNanos(System.nanoTime() - bufferedSinceNanos);
    }

    public WriteCounters counters() {
        return counters;
    }

    /**
     * Writes everything buffered and returns once the service has acknowledged every row.
     *
     * @throws TablestoreWriteException when a row is refused for good or retries run out; the
     *     buffer is empty afterwards either way (the engines then fail and replay their input)
     */
    public void flush() {
        if (buffer.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<RowWrite> rows = buffer.drain();
        try {
            if (!rows.isEmpty()) {
                send(rows);
            }
        } finally {
            counters.flushed(System.nanoTime() - start);
        }
    }

    /** Closes the client; buffered changes not flushed are dropped. */
    @Override
    public void close() {
        client.close();
    }

    private long checkWritable(RowWrite change) {
        int columns = change.puts().size() + change.deletes().size();
        if (columns > WriteSettings.MAX_COLUMNS) {
            throw new TablestoreWriteException(
                    "Row "
                            + change.key()
                            + " of table "
                            + table
                            + " changes "
                            + columns
                            + " columns; Tablestore takes at most "
                            + WriteSettings.MAX_COLUMNS
                            + " in one row change: write fewer columns per row");
        }
        long bytes = change.estimatedBytes();
        if (bytes > settings.maxBytes()) {
            throw new TablestoreWriteException(
                    "Row "
                            + change.key()
                            + " of table "
                            + table
                            + " is about "
                            + bytes
                            + " bytes, more than one BatchWriteRow request may carry ("
                            + settings.maxBytes()
                            + " bytes; the service's limit is 4 MB): make its values smaller");
        }
        return bytes;
    }

    private void send(List<RowWrite> rows) {
        List<RowWrite> pending = rows;
        for (int attempt = 0; ; attempt++) {
            List<RowWrite> again = sendOnce(pending, attempt);
            if (again.isEmpty()) {
                return;
            }
            counters.retried(again.size());
            LOG.debug(
                    "Retrying {} row(s) of table {} (retry {} of {})",
                    again.size(),
                    table,
                    attempt + 1,
                    settings.maxRetries());
            pause(settings.backoff(attempt));
            pending = again;
        }
    }

    /** One request; returns the rows to send again. */
    private List<RowWrite> sendOnce(List<RowWrite> rows, int attempt) {
        List<RowOutcome> outcomes;
        try {
            counters.requestSent();
            outcomes = client.batchWrite(table, rows);
        } catch (WriteRequestException e) {
            if (!e.retriable() || attempt >= settings.maxRetries()) {
                throw requestFailed(rows, e, attempt);
            }
            return rows;
        }
        long units = 0;
        for (RowOutcome outcome : outcomes) {
            units += outcome.writeCapacityUnits();
        }
        counters.consumed(units);
        List<RowWrite> again = new ArrayList<>();
        int written = 0;
        for (int i = 0; i < rows.size(); i++) {
            RowOutcome outcome = outcomes.get(i);
            if (outcome.ok()) {
                written++;
                continue;
            }
            String code = outcome.errorCode().orElseThrow();
            if (!TransientErrors.isTransient(code)) {
                counters.written(written);
                throw rowRefused(rows.get(i), outcome);
            }
            if (attempt >= settings.maxRetries()) {
                counters.written(written);
                throw retriesExhausted(rows.get(i), outcome, attempt);
            }
            again.add(rows.get(i));
        }
        counters.written(written);
        return again;
    }

    private void pause(Duration wait) {
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TablestoreWriteException(
                    "Interrupted while waiting to retry a write to table " + table, e);
        }
    }

    private TablestoreWriteException rowRefused(RowWrite row, RowOutcome outcome) {
        String code = outcome.errorCode().orElseThrow();
        return new TablestoreWriteException(
                "Tablestore refused to write row "
                        + row.key()
                        + " of table "
                        + table
                        + " ("
                        + row.kind()
                        + "): "
                        + code
                        + ": "
                        + outcome.message()
                        + ". "
                        + WriteHints.forCode(code));
    }

    private TablestoreWriteException retriesExhausted(
            RowWrite row, RowOutcome outcome, int attempt) {
        return new TablestoreWriteException(
                "Could not write row "
                        + row.key()
                        + " of table "
                        + table
                        + " after "
                        + attempt
                        + " retries: "
                        + outcome.errorCode().orElseThrow()
                        + ": "
                        + outcome.message()
                        + ". The service is overloaded or unavailable: raise the table's"
                        + " capacity or the number of retries, or lower the write rate");
    }

    private TablestoreWriteException requestFailed(
            List<RowWrite> rows, WriteRequestException e, int attempt) {
        return new TablestoreWriteException(
                "A BatchWriteRow request of "
                        + rows.size()
                        + " row(s) to table "
                        + table
                        + " (first row "
                        + rows.get(0).key()
                        + ") failed"
                        + (e.retriable() ? " after " + attempt + " retries" : "")
                        + ": "
                        + e.errorCode()
                        + ": "
                        + e.getMessage()
                        + ". "
                        + WriteHints.forCode(e.errorCode()),
                e);
    }
}
