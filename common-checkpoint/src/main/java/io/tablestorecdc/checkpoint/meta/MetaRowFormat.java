package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Format version 2 of the meta-table rows (and the reading of version 1): the reserved keys, the
 * column names, and the conversion of rows to and from the model. docs/meta-table.md describes the
 * same schema for users.
 *
 * <p>Version 2 adds incremental snapshots: a manifest (and its batch-log row) may name a full
 * <em>base</em> snapshot, and the snapshot then holds entries only for the channels its manifest
 * lists as its delta. Version 1 rows are full snapshots and read as such.
 */
final class MetaRowFormat {

    /** The version this build writes; it reads every version up to it. */
    static final int FORMAT_VERSION = 2;

    /** Key column {@code channel_id} of a snapshot's manifest row. */
    static final String MANIFEST = "!manifest";

    /** Key column {@code batch} of the batch-log rows. */
    static final String BATCH_LOG = "!batches";

    /** Key columns {@code batch} and {@code channel_id} of the owner row. */
    static final String OWNER = "!owner";

    /** The batch and channel-column value of the row naming the tunnel client last connected. */
    static final String CLIENT = "!client";

    static final String COL_CLIENT_ID = "client_id";

    /** The batch-column value of the rows that record where each channel was first adopted. */
    static final String ADOPTIONS = "!adopted";

    /** The batch and channel-column value of the consumer's catch-up report. */
    static final String PROGRESS = "!progress";

    static final String COL_REPORTED_MS = "reported_ms";
    static final String COL_CAUGHT_UP = "caught_up";
    static final String COL_CAUGHT_UP_COUNT = "caught_up_count";

    static final String COL_FORMAT_VERSION = "format_version";
    static final String COL_TYPE = "type";
    static final String COL_LIFECYCLE = "lifecycle";
    static final String COL_TOKEN = "token";
    static final String COL_SKIP = "skip";
    static final String COL_BATCH_RECORDS = "batch_records";
    static final String COL_ADOPTED_TOKEN = "adopted_token";
    static final String COL_ADOPTED_SKIP = "adopted_skip";
    static final String COL_SEQ_EPOCH = "seq_epoch";
    static final String COL_SEQ_TS = "seq_ts";
    static final String COL_SEQ_ROW = "seq_row";
    static final String COL_CHANNELS = "channels";
    static final String COL_CHANNEL_COUNT = "channel_count";
    static final String COL_BATCH_SEQ = "batch_seq";
    static final String COL_CREATED_MS = "created_ms";
    static final String COL_BASE_TOKEN = "base_token";
    static final String COL_BASE_DEPTH = "base_depth";
    static final String COL_DELTA_CHANNELS = "delta_channels";
    static final String COL_DELTA_COUNT = "delta_count";
    static final String COL_OWNER = "owner";
    static final String COL_LEASE_EXPIRY_MS = "lease_expiry_ms";
    static final String COL_LEASE_EPOCH = "lease_epoch";
    static final String COL_LEASE_HOLDER = "lease_holder";

    /** Owner value of a released lease. */
    static final String NO_OWNER = "";

    private static final char CHANNEL_SEPARATOR = ',';

    private final String tableName;

    MetaRowFormat(String tableName) {
        this.tableName = tableName;
    }

    /**
     * The manifest of a snapshot: the channels it must contain, its batch sequence, and for a delta
     * snapshot the base it completes.
     */
    record Manifest(List<String> channels, long batchSequence, Optional<Delta> delta) {

        Manifest {
            channels = List.copyOf(channels);
            Objects.requireNonNull(delta, "delta");
        }

        /** A full snapshot's manifest. */
        static Manifest full(Collection<String> channels, long batchSequence) {
            return new Manifest(List.copyOf(channels), batchSequence, Optional.empty());
        }
    }

    /**
     * What makes a snapshot a delta: the full snapshot it completes, how many batches it is past
     * that base (1 for the first delta after it), and the channels whose entries it holds itself;
     * every other channel of its manifest takes its base's entry, carried forward.
     */
    record Delta(BatchToken base, int depth, List<String> channels) {

        Delta {
            Objects.requireNonNull(base, "base");
            channels = List.copyOf(channels);
            if (depth < 1) {
                throw new IllegalArgumentException("A delta's depth must be >= 1 but was " + depth);
            }
        }
    }

    static MetaRowKey entryKey(String tunnelId, BatchToken token, String channelId) {
        return new MetaRowKey(tunnelId, token.toString(), requireChannelId(channelId));
    }

    static MetaRowKey manifestKey(String tunnelId, BatchToken token) {
        return new MetaRowKey(tunnelId, token.toString(), MANIFEST);
    }

    /** Zero-padded so that the key order is the sequence order; the token makes it unique. */
    static MetaRowKey batchLogKey(String tunnelId, long sequence, BatchToken token) {
        return new MetaRowKey(tunnelId, BATCH_LOG, String.format("%019d-%s", sequence, token));
    }

    static MetaRowKey adoptionKey(String tunnelId, String channelId) {
        return new MetaRowKey(tunnelId, ADOPTIONS, requireChannelId(channelId));
    }

    static MetaRow adoptionRow(String tunnelId, ChannelCheckpoint c) {
        return MetaRow.of(adoptionKey(tunnelId, c.channelId()))
                .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                .with(COL_TYPE, c.type().code())
                .with(COL_ADOPTED_TOKEN, c.adoptedAt().token())
                .with(COL_ADOPTED_SKIP, c.adoptedAt().skip());
    }

    ChannelPosition adoption(MetaRow row) {
        requireFormat(row);
        return position(row, COL_ADOPTED_TOKEN, COL_ADOPTED_SKIP);
    }

    static MetaRowKey clientKey(String tunnelId) {
        return new MetaRowKey(tunnelId, CLIENT, CLIENT);
    }

    static MetaRow clientRow(String tunnelId, String clientId) {
        return MetaRow.of(clientKey(tunnelId))
                .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                .with(COL_CLIENT_ID, clientId);
    }

    String clientId(MetaRow row) {
        requireFormat(row);
        return text(row, COL_CLIENT_ID);
    }

    static MetaRowKey progressKey(String tunnelId) {
        return new MetaRowKey(tunnelId, PROGRESS, PROGRESS);
    }

    /**
     * The catch-up report: one line per channel, {@code <channel id> <skip> <token>} (the token
     * last, as it is the only part that may hold spaces).
     */
    static MetaRow progressRow(String tunnelId, ConsumerProgress progress) {
        StringBuilder lines = new StringBuilder();
        int count = 0;
        for (Map.Entry<String, ChannelPosition> e : progress.caughtUp().entrySet()) {
            ChannelPosition position = e.getValue();
            if (position.isFinished() || position.token().indexOf('\n') >= 0) {
                continue; // a finished channel has no lag; such a token is not a tunnel token
            }
            lines.append(requireChannelId(e.getKey()))
                    .append(' ')
                    .append(position.skip())
                    .append(' ')
                    .append(position.token())
                    .append('\n');
            count++;
        }
        return MetaRow.of(progressKey(tunnelId))
                .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                .with(COL_LEASE_HOLDER, progress.holder())
                .with(COL_REPORTED_MS, progress.reportedAtMillis())
                .with(COL_CAUGHT_UP, lines.toString())
                .with(COL_CAUGHT_UP_COUNT, count);
    }

    ConsumerProgress progress(MetaRow row) {
        requireFormat(row);
        Map<String, ChannelPosition> caughtUp = new TreeMap<>();
        String text = text(row, COL_CAUGHT_UP);
        for (String line : text.isEmpty() ? new String[0] : text.split("\n")) {
            String[] parts = line.split(" ", 3);
            if (parts.length != 3) {
                throw malformed(
                        row, COL_CAUGHT_UP, "line '" + line + "' is not <channel> <skip> <token>");
            }
            try {
                caughtUp.put(parts[0], ChannelPosition.at(parts[2], Long.parseLong(parts[1])));
            } catch (IllegalArgumentException e) {
                throw malformed(
                        row, COL_CAUGHT_UP, "line for channel " + parts[0] + ": " + e.getMessage());
            }
        }
        long count = integer(row, COL_CAUGHT_UP_COUNT);
        if (count != caughtUp.size()) {
            throw malformed(
                    row,
                    COL_CAUGHT_UP,
                    "lists "
                            + caughtUp.size()
                            + " channels but "
                            + COL_CAUGHT_UP_COUNT
                            + " is "
                            + count);
        }
        return new ConsumerProgress(
                text(row, COL_LEASE_HOLDER), integer(row, COL_REPORTED_MS), caughtUp);
    }

    static MetaRowKey ownerKey(String tunnelId) {
        return new MetaRowKey(tunnelId, OWNER, OWNER);
    }

    /** Channel ids share the key column with the reserved '!' rows and the manifest's list. */
    static String requireChannelId(String channelId) {
        if (channelId.isEmpty()
                || channelId.startsWith("!")
                || channelId.indexOf(CHANNEL_SEPARATOR) >= 0) {
            throw new IllegalArgumentException(
                    "Channel id '"
                            + channelId
                            + "' cannot be stored in the meta table: it must be non-empty, must not"
                            + " start with '!' and must not contain ','");
        }
        return channelId;
    }

    static MetaRow entryRow(String tunnelId, BatchToken token, ChannelCheckpoint c) {
        SequenceInfo seq = c.lastSequence();
        return MetaRow.of(entryKey(tunnelId, token, c.channelId()))
                .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                .with(COL_TYPE, c.type().code())
                .with(COL_LIFECYCLE, c.lifecycle().code())
                .with(COL_TOKEN, c.position().token())
                .with(COL_SKIP, c.position().skip())
                .with(COL_BATCH_RECORDS, c.batchRecords())
                .with(COL_ADOPTED_TOKEN, c.adoptedAt().token())
                .with(COL_ADOPTED_SKIP, c.adoptedAt().skip())
                .with(COL_SEQ_EPOCH, seq.epoch())
                .with(COL_SEQ_TS, seq.timestampMicros())
                .with(COL_SEQ_ROW, seq.rowIndex());
    }

    static MetaRow manifestRow(
            String tunnelId, BatchToken token, Manifest manifest, long createdMillis) {
        manifest.channels().forEach(MetaRowFormat::requireChannelId);
        MetaRow row =
                MetaRow.of(manifestKey(tunnelId, token))
                        .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                        .with(COL_CHANNELS, joined(manifest.channels()))
                        .with(COL_CHANNEL_COUNT, manifest.channels().size())
                        .with(COL_BATCH_SEQ, manifest.batchSequence())
                        .with(COL_CREATED_MS, createdMillis);
        if (manifest.delta().isPresent()) {
            Delta delta = manifest.delta().get();
            row =
                    row.with(COL_BASE_TOKEN, delta.base().toString())
                            .with(COL_BASE_DEPTH, delta.depth())
                            .with(COL_DELTA_CHANNELS, joined(delta.channels()))
                            .with(COL_DELTA_COUNT, delta.channels().size());
        }
        return row;
    }

    private static String joined(List<String> channels) {
        return String.join(String.valueOf(CHANNEL_SEPARATOR), channels);
    }

    static MetaRow batchLogRow(String tunnelId, LoggedBatch batch) {
        MetaRow row =
                MetaRow.of(batchLogKey(tunnelId, batch.sequence(), batch.token()))
                        .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                        .with(COL_TOKEN, batch.token().toString())
                        .with(COL_BATCH_SEQ, batch.sequence())
                        .with(COL_CREATED_MS, batch.createdAtMillis());
        return batch.base().isEmpty()
                ? row
                : row.with(COL_BASE_TOKEN, batch.base().get().toString());
    }

    static MetaRow ownerRow(OwnerLease lease) {
        return MetaRow.of(ownerKey(lease.tunnelId()))
                .with(COL_FORMAT_VERSION, FORMAT_VERSION)
                .with(COL_OWNER, lease.consumerId())
                .with(COL_LEASE_HOLDER, lease.holder())
                .with(COL_LEASE_EXPIRY_MS, lease.expiresAtMillis())
                .with(COL_LEASE_EPOCH, lease.epoch());
    }

    ChannelCheckpoint entry(MetaRow row) {
        requireFormat(row);
        return new ChannelCheckpoint(
                row.key().channelId(),
                parse(row, COL_TYPE, ChannelType::fromCode),
                parse(row, COL_LIFECYCLE, ChannelLifecycle::fromCode),
                position(row, COL_TOKEN, COL_SKIP),
                integer(row, COL_BATCH_RECORDS),
                position(row, COL_ADOPTED_TOKEN, COL_ADOPTED_SKIP),
                new SequenceInfo(
                        intColumn(row, COL_SEQ_EPOCH),
                        integer(row, COL_SEQ_TS),
                        intColumn(row, COL_SEQ_ROW)));
    }

    Manifest manifest(MetaRow row) {
        requireFormat(row);
        List<String> channels = channelList(row, COL_CHANNELS, COL_CHANNEL_COUNT);
        long sequence = integer(row, COL_BATCH_SEQ);
        if (row.column(COL_BASE_TOKEN).isEmpty()) {
            return new Manifest(channels, sequence, Optional.empty());
        }
        List<String> own = channelList(row, COL_DELTA_CHANNELS, COL_DELTA_COUNT);
        if (!new HashSet<>(channels).containsAll(own)) {
            throw malformed(
                    row, COL_DELTA_CHANNELS, "lists channels that " + COL_CHANNELS + " does not");
        }
        int depth = intColumn(row, COL_BASE_DEPTH);
        if (depth < 1) {
            throw malformed(row, COL_BASE_DEPTH, "must be >= 1 but is " + depth);
        }
        Delta delta = new Delta(parse(row, COL_BASE_TOKEN, BatchToken::parse), depth, own);
        return new Manifest(channels, sequence, Optional.of(delta));
    }

    private List<String> channelList(MetaRow row, String listColumn, String countColumn) {
        String joined = text(row, listColumn);
        List<String> channels =
                joined.isEmpty()
                        ? List.of()
                        : Arrays.asList(joined.split(String.valueOf(CHANNEL_SEPARATOR), -1));
        long count = integer(row, countColumn);
        if (count != channels.size()) {
            throw malformed(
                    row,
                    listColumn,
                    "lists " + channels.size() + " channels but " + countColumn + " is " + count);
        }
        return channels;
    }

    LoggedBatch loggedBatch(MetaRow row) {
        requireFormat(row);
        Optional<BatchToken> base =
                row.column(COL_BASE_TOKEN).isEmpty()
                        ? Optional.empty()
                        : Optional.of(parse(row, COL_BASE_TOKEN, BatchToken::parse));
        return new LoggedBatch(
                integer(row, COL_BATCH_SEQ),
                parse(row, COL_TOKEN, BatchToken::parse),
                integer(row, COL_CREATED_MS),
                base);
    }

    OwnerLease owner(MetaRow row) {
        requireFormat(row);
        return new OwnerLease(
                row.key().tunnelId(),
                text(row, COL_OWNER),
                text(row, COL_LEASE_HOLDER),
                integer(row, COL_LEASE_EPOCH),
                integer(row, COL_LEASE_EXPIRY_MS));
    }

    void requireFormat(MetaRow row) {
        long version = integer(row, COL_FORMAT_VERSION);
        if (version > FORMAT_VERSION) {
            throw new MetaFormatException(
                    "Meta table "
                            + tableName
                            + " row "
                            + row.key()
                            + " has format_version "
                            + version
                            + " but this build reads format_version 1 to "
                            + FORMAT_VERSION
                            + ": it was written by a newer tablestore-cdc. Upgrade the connector"
                            + " to the version that wrote it (or newer).");
        }
        if (version < 1) {
            throw malformed(row, COL_FORMAT_VERSION, "must be >= 1 but is " + version);
        }
    }

    private ChannelPosition position(MetaRow row, String tokenColumn, String skipColumn) {
        String token = text(row, tokenColumn);
        long skip = integer(row, skipColumn);
        try {
            return ChannelPosition.at(token, skip);
        } catch (IllegalArgumentException e) {
            throw malformed(row, tokenColumn + "/" + skipColumn, e.getMessage());
        }
    }

    private <T> T parse(MetaRow row, String column, Function<String, T> parser) {
        String value = text(row, column);
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw malformed(row, column, e.getMessage());
        }
    }

    private int intColumn(MetaRow row, String column) {
        long value = integer(row, column);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw malformed(row, column, "value " + value + " does not fit in 32 bits");
        }
        return (int) value;
    }

    String text(MetaRow row, String column) {
        MetaValue value = require(row, column);
        if (value instanceof MetaValue.Text text) {
            return text.value();
        }
        throw malformed(row, column, "expected a STRING but found " + describe(value));
    }

    long integer(MetaRow row, String column) {
        MetaValue value = require(row, column);
        if (value instanceof MetaValue.Int number) {
            return number.value();
        }
        throw malformed(row, column, "expected an INTEGER but found " + describe(value));
    }

    private MetaValue require(MetaRow row, String column) {
        return row.column(column)
                .orElseThrow(() -> malformed(row, column, "the column is missing"));
    }

    private static String describe(MetaValue value) {
        if (value instanceof MetaValue.Text text) {
            return "STRING '" + text.value() + "'";
        }
        if (value instanceof MetaValue.Int number) {
            return "INTEGER " + number.value();
        }
        return ((MetaValue.Other) value).typeName();
    }

    MetaFormatException malformed(MetaRow row, String column, String problem) {
        return new MetaFormatException(
                "Meta table "
                        + tableName
                        + " row "
                        + row.key()
                        + " column "
                        + column
                        + ": "
                        + problem
                        + ". The row is corrupt or was edited by hand; restore it from a backup, or"
                        + " delete this tunnel's meta rows and restart the consumer from a fresh"
                        + " checkpoint (see docs/meta-table.md).");
    }
}
