package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.MetaRowFormat.BATCH_LOG;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The requests a {@link MetaTable} handle and its tunnels send, beyond single rows: range reads
 * paged to the end, writes and deletes in runs the server accepts, and the requests of one
 * snapshot's write, read or purge sent at once when an executor is given.
 */
final class MetaRequests {

    private final MetaTableClient client;
    private final MetaRowFormat format;
    private final Optional<Executor> parallelRequests;

    MetaRequests(MetaTableClient client, Optional<Executor> parallelRequests) {
        this.client = Objects.requireNonNull(client, "client");
        this.parallelRequests = Objects.requireNonNull(parallelRequests, "parallelRequests");
        this.format = new MetaRowFormat(client.tableName());
    }

    MetaTableClient client() {
        return client;
    }

    MetaRowFormat format() {
        return format;
    }

    String tableName() {
        return client.tableName();
    }

    /** Whether the requests of one snapshot may be sent at once. */
    boolean parallel() {
        return parallelRequests.isPresent();
    }

    /** {@code items} in runs of at most {@link MetaTableClient#MAX_BATCH_ROWS}. */
    static <T> List<List<T>> chunks(List<T> items) {
        List<List<T>> chunks = new ArrayList<>();
        for (int from = 0; from < items.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            chunks.add(
                    items.subList(
                            from, Math.min(items.size(), from + MetaTableClient.MAX_BATCH_ROWS)));
        }
        return chunks;
    }

    /**
     * Runs the calls, at once when there is an executor, and returns their results in order. Waits
     * for every call to end before it throws the first failure (in list order), so that no request
     * is still in flight when the caller goes on (a manifest or log row written after, a retry, a
     * replan).
     */
    <T> List<T> eachAtOnce(List<Supplier<T>> calls) {
        if (parallelRequests.isEmpty() || calls.size() < 2) {
            List<T> results = new ArrayList<>();
            calls.forEach(c -> results.add(c.get()));
            return results;
        }
        List<CompletableFuture<T>> running = new ArrayList<>();
        RuntimeException failure = null;
        for (Supplier<T> call : calls) {
            try {
                running.add(CompletableFuture.supplyAsync(call, parallelRequests.get()));
            } catch (RuntimeException rejected) {
                failure = rejected; // e.g. the executor was shut down: send no more
                break;
            }
        }
        List<T> results = new ArrayList<>();
        for (CompletableFuture<T> call : running) {
            try {
                results.add(call.join());
            } catch (CompletionException e) {
                failure = failure != null ? failure : unwrapped(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return results;
    }

    private static RuntimeException unwrapped(CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return e;
    }

    /** Every row under {@code (tunnelId, batch)}, paging through range reads. */
    List<MetaRow> readAll(String tunnelId, String batch) {
        List<MetaRow> rows = new ArrayList<>();
        Optional<String> from = Optional.empty();
        do {
            RangePage page =
                    client.readRange(tunnelId, batch, from, MetaTableClient.MAX_RANGE_ROWS);
            if (from.isPresent() && page.rows().isEmpty() && page.nextChannelId().equals(from)) {
                throw new MetaTableException(
                        "Range read of meta table "
                                + client.tableName()
                                + " did not advance past "
                                + from
                                + "; retry, and report this as a bug if it persists");
            }
            rows.addAll(page.rows());
            from = page.nextChannelId();
        } while (from.isPresent());
        return rows;
    }

    /** The rows from {@code from} (inclusive) up to {@code until} (exclusive), paging. */
    List<MetaRow> readSlice(
            String tunnelId,
            String batch,
            Optional<String> from,
            Optional<String> until,
            int limit) {
        List<MetaRow> rows = new ArrayList<>();
        Optional<String> next = from;
        do {
            RangePage page = client.readRange(tunnelId, batch, next, limit);
            if (next.isPresent() && page.rows().isEmpty() && page.nextChannelId().equals(next)) {
                throw new MetaTableException(
                        "Range read of meta table "
                                + client.tableName()
                                + " did not advance past "
                                + next
                                + "; retry, and report this as a bug if it persists");
            }
            for (MetaRow row : page.rows()) {
                if (until.isPresent() && row.key().channelId().compareTo(until.get()) >= 0) {
                    return rows;
                }
                rows.add(row);
            }
            next = page.nextChannelId();
        } while (next.isPresent() && (until.isEmpty() || next.get().compareTo(until.get()) < 0));
        return rows;
    }

    /** The tunnel's batch log, oldest first. */
    List<LoggedBatch> batchLog(String tunnelId) {
        List<LoggedBatch> log = new ArrayList<>();
        readAll(tunnelId, BATCH_LOG).forEach(row -> log.add(format.loggedBatch(row)));
        return log;
    }

    /** A row a conditional write found, which must still be there. */
    MetaRow getExisting(MetaRowKey key) {
        return client.get(key)
                .orElseThrow(
                        () ->
                                new MetaTableException(
                                        "Meta table "
                                                + client.tableName()
                                                + " reported row "
                                                + key
                                                + " as existing but it is gone; is something"
                                                + " deleting meta rows while the consumer runs?"
                                                + " Retry, and stop any other process that"
                                                + " deletes from this table."));
    }
}
