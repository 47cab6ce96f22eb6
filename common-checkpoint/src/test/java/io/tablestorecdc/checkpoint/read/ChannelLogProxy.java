package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.HeldChannel;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import io.tablestorecdc.checkpoint.tunnel.ServerCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A fake tunnel with one channel whose records live in an append-only log. Tokens name an offset in
 * the log; every response has a size drawn at random, so two reads of the same range are batched
 * differently, as a real server may do. Responses note every record they convert or pass to a
 * visitor (by log offset), so tests can prove which records a reader converted.
 */
final class ChannelLogProxy implements TunnelProxy {

    static final String CHANNEL = "channel-1";

    private final List<ChangeRecord> log = new ArrayList<>();
    private final Random random;
    private final int maxBatch;
    private boolean finished;
    private final List<Integer> converted = new ArrayList<>();
    private final List<Integer> visited = new ArrayList<>();
    private int reads;
    private Runnable onRead = () -> {};

    ChannelLogProxy(long seed, int maxBatch) {
        this.random = new Random(seed);
        this.maxBatch = maxBatch;
    }

    static String tokenAt(int offset) {
        return "offset-" + offset;
    }

    ChannelLogProxy append(int count) {
        for (int i = 0; i < count; i++) {
            int n = log.size();
            log.add(
                    new ChangeRecord(
                            ChangeRecord.Action.PUT,
                            List.of(
                                    new ChangeRecord.PrimaryKeyColumn(
                                            "id", CellValue.ofInteger(n))),
                            List.of(),
                            new SequenceInfo(0, 1_000L + n, 0),
                            CHANNEL));
        }
        return this;
    }

    ChannelLogProxy finish() {
        finished = true;
        return this;
    }

    /** Drops the log's tail, as a server that lost data would. */
    void truncateTo(int size) {
        log.subList(size, log.size()).clear();
    }

    void onRead(Runnable action) {
        this.onRead = action;
    }

    List<ChangeRecord> log() {
        return List.copyOf(log);
    }

    int reads() {
        return reads;
    }

    /** Offsets of the records converted through {@link RecordPage#record}, in call order. */
    List<Integer> converted() {
        return List.copyOf(converted);
    }

    /** Offsets of the records passed to a visitor, in call order. */
    List<Integer> visited() {
        return List.copyOf(visited);
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        reads++;
        onRead.run();
        int from = Integer.parseInt(token.substring("offset-".length()));
        int to = Math.min(log.size(), from + random.nextInt(maxBatch + 1));
        boolean atEnd = to == log.size();
        ChannelPosition next =
                atEnd && finished ? ChannelPosition.finished() : ChannelPosition.at(tokenAt(to));
        return new ReadResult(new LogPage(from, to), next, !atEnd, 0);
    }

    /** One response: the log's records {@code [from, to)}. */
    private final class LogPage implements RecordPage {
        private final int from;
        private final int to;

        LogPage(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public int size() {
            return to - from;
        }

        @Override
        public ChangeRecord record(int index) {
            converted.add(offset(index));
            return log.get(offset(index));
        }

        @Override
        public SequenceInfo sequence(int index) {
            return log.get(offset(index)).sequence();
        }

        @Override
        public void visit(int index, ChangeVisitor visitor) {
            visited.add(offset(index));
            RecordPage.of(List.of(log.get(offset(index)))).visit(0, visitor);
        }

        private int offset(int index) {
            if (index < 0 || index >= size()) {
                throw new IndexOutOfBoundsException(index + " of " + size());
            }
            return from + index;
        }
    }

    @Override
    public TunnelDescription describeTunnel(String tableName, String tunnelName) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String createTunnel(
            String tableName, String tunnelName, TunnelType type, TunnelStart start) {
        throw new UnsupportedOperationException();
    }

    @Override
    public TunnelClientId connect(String tunnelId, String clientTag, Duration heartbeatTimeout) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<AssignedChannel> heartbeat(TunnelClientId client, List<HeldChannel> held) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long checkpoint(
            TunnelClientId client,
            String channelId,
            ChannelPosition position,
            long sequenceNumber) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void shutdown(TunnelClientId client) {}

    @Override
    public void close() {}
}
