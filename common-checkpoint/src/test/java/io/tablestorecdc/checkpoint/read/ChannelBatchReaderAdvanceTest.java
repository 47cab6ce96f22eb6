package io.tablestorecdc.checkpoint.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link ChannelBatchReader#advance()} counts like {@link ChannelBatchReader#next()} and converts
 * nothing.
 */
class ChannelBatchReaderAdvanceTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tunnel-1", "client-1");
    private static final String CHANNEL = "channel-1";
    private static final int LOG_SIZE = 60;

    @Test
    void advanceDeliversCountsAndPositionsLikeNextWhileConvertingNothing() {
        int midPageEnds = 0;
        for (long seed = 0; seed < 60; seed++) {
            boolean finished = seed % 2 == 0;
            int tokenOffset = (int) (seed % 5) * 3;
            int skip = (int) (seed % 4) * 5;
            long cap = 1 + seed % 17 + (seed % 3 == 0 ? 100 : 0);
            ChannelCheckpoint start = startAt(tokenOffset, skip);
            FakeTunnelService byNext = logOf(seed, 6, LOG_SIZE, finished);
            FakeTunnelService byAdvance = logOf(seed, 6, LOG_SIZE, finished);

            ChannelBatchReader nextReader = firstRead(byNext, start, cap);
            ChannelBatchReader advanceReader = firstRead(byAdvance, start, cap);
            List<ChangeRecord> delivered = new ArrayList<>();
            List<ChannelPosition> nextPositions = new ArrayList<>();
            for (Optional<ChangeRecord> r = nextReader.next(); r.isPresent(); ) {
                delivered.add(r.get());
                nextPositions.add(nextReader.position());
                r = nextReader.next();
            }
            List<ChannelPosition> advancePositions = new ArrayList<>();
            while (advanceReader.advance()) {
                advancePositions.add(advanceReader.position());
            }

            String what = "seed " + seed;
            int first = tokenOffset + skip;
            assertThat(delivered)
                    .as(what)
                    .isEqualTo(
                            byNext.channel(CHANNEL)
                                    .records()
                                    .subList(first, first + delivered.size()));
            assertThat(advanceReader.delivered()).as(what).isEqualTo(nextReader.delivered());
            assertThat(advancePositions).as(what).isEqualTo(nextPositions);
            assertThat(advanceReader.position()).as(what).isEqualTo(nextReader.position());
            assertThat(advanceReader.endCheckpoint())
                    .as(what)
                    .isEqualTo(nextReader.endCheckpoint());
            assertThat(byAdvance.requests().reads()).as(what).isEqualTo(byNext.requests().reads());
            assertThat(byAdvance.channel(CHANNEL).converted()).as(what).isEmpty();
            assertThat(byAdvance.channel(CHANNEL).visited()).as(what).isEmpty();
            assertThat(byNext.channel(CHANNEL).converted())
                    .as(what + ": next() converts each delivered record once, nothing else")
                    .isEqualTo(offsets(first, delivered.size()));
            if (nextReader.endCheckpoint().position().skip() > 0) {
                midPageEnds++;
            }
        }
        assertThat(midPageEnds).as("batches that ended inside a response").isPositive();
    }

    @Test
    void aReplayByAdvanceCountsTheFirstRunsRecordsWithoutConverting() {
        for (long seed = 0; seed < 30; seed++) {
            ChannelCheckpoint start = startAt(2, (int) (seed % 7));
            FakeTunnelService firstServer = logOf(seed, 5, LOG_SIZE, false);
            ChannelBatchReader first = firstRead(firstServer, start, 3 + seed % 11);
            while (first.advance()) {}

            FakeTunnelService laterServer = logOf(seed + 500, 9, LOG_SIZE, false);
            ChannelBatchReader replay =
                    ChannelBatchReader.replay(
                            laterServer,
                            CLIENT,
                            start,
                            first.endCheckpoint(),
                            ChannelBatchReader.IdleBackoff.NONE);
            while (replay.advance()) {}

            assertThat(replay.delivered()).as("seed %d", seed).isEqualTo(first.delivered());
            assertThat(replay.endCheckpoint().lastSequence())
                    .isEqualTo(first.endCheckpoint().lastSequence());
            assertThat(laterServer.channel(CHANNEL).converted()).isEmpty();
            assertThat(firstServer.channel(CHANNEL).converted()).isEmpty();
        }
    }

    @Test
    void recordsSkippedAtTheStartOfAPageAreNeverConverted() {
        // Responses of at most 4 records: the first ones are skipped whole, one partly.
        FakeTunnelService server = logOf(11, 4, LOG_SIZE, true);
        ChannelBatchReader reader = firstRead(server, startAt(0, 10), 5);

        List<ChangeRecord> delivered = new ArrayList<>();
        while (reader.advance()) {
            delivered.add(reader.current());
        }

        assertThat(delivered).isEqualTo(server.channel(CHANNEL).records().subList(10, 15));
        assertThat(server.channel(CHANNEL).converted()).containsExactly(10, 11, 12, 13, 14);
        assertThat(server.requests().reads()).hasSizeGreaterThan(1);
    }

    @Test
    void currentConvertsExactlyTheCurrentRecordEachTimeItIsAsked() {
        FakeTunnelService server = logOf(12, 3, LOG_SIZE, false);
        ChannelBatchReader reader = firstRead(server, startAt(3, 4), 8);
        List<Integer> expected = new ArrayList<>();

        for (int offset = 7; offset < 15; offset++) {
            assertThat(reader.advance()).isTrue();
            if (offset % 2 == 0) {
                continue; // counted, never looked at
            }
            assertThat(reader.current()).isEqualTo(server.channel(CHANNEL).records().get(offset));
            assertThat(reader.current()).isEqualTo(server.channel(CHANNEL).records().get(offset));
            expected.add(offset);
            expected.add(offset);
            assertThat(server.channel(CHANNEL).converted()).isEqualTo(expected);
        }
        assertThat(reader.advance()).isFalse();
        assertThat(reader.delivered()).isEqualTo(8);
    }

    @Test
    void visitCurrentPassesExactlyTheCurrentRecordWithoutConvertingIt() {
        FakeTunnelService server = logOf(13, 3, LOG_SIZE, false);
        ChannelBatchReader reader = firstRead(server, startAt(0, 5), 6);
        KeyRecorder keys = new KeyRecorder();

        while (reader.advance()) {
            reader.visitCurrent(keys);
        }

        assertThat(keys.ids).containsExactly(5L, 6L, 7L, 8L, 9L, 10L);
        assertThat(keys.sequences)
                .containsExactly(
                        IntStream.rangeClosed(5, 10)
                                .mapToObj(n -> new SequenceInfo(1, 1_000_000L + n * 1000L, n))
                                .toArray(SequenceInfo[]::new));
        assertThat(server.channel(CHANNEL).visited()).containsExactly(5, 6, 7, 8, 9, 10);
        assertThat(server.channel(CHANNEL).converted()).isEmpty();
    }

    @Test
    void currentBeforeAnyAdvanceIsAnError() {
        FakeTunnelService server = logOf(14, 3, LOG_SIZE, false);
        ChannelBatchReader reader = firstRead(server, startAt(0, 4), 10);

        assertThatThrownBy(reader::current)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("advance()");
        assertThatThrownBy(() -> reader.visitCurrent(new KeyRecorder()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("advance()");
        assertThat(server.channel(CHANNEL).converted()).isEmpty();
        assertThat(server.channel(CHANNEL).visited()).isEmpty();
    }

    @Test
    void currentOfAChannelThatDeliveredNothingIsAnError() {
        FakeTunnelService server = logOf(15, 3, 0, false);
        ChannelBatchReader reader = firstRead(server, startAt(0, 0), 10);

        assertThat(reader.advance()).isFalse();
        assertThatThrownBy(reader::current).isInstanceOf(IllegalStateException.class);
    }

    private static ChannelCheckpoint startAt(int tokenOffset, int skip) {
        return ChannelCheckpoint.adopted(
                CHANNEL,
                ChannelType.STREAM,
                ChannelPosition.at(FakeTunnelService.token(CHANNEL, tokenOffset), skip));
    }

    private static ChannelBatchReader firstRead(
            FakeTunnelService server, ChannelCheckpoint start, long maxRecords) {
        return ChannelBatchReader.firstRead(
                server,
                CLIENT,
                start,
                new ChannelReadLimit(maxRecords, Duration.ofHours(1)),
                () -> 0L);
    }

    private static List<Integer> offsets(int first, int count) {
        return IntStream.range(first, first + count).boxed().toList();
    }

    /** Notes each visited record's id key and sequence. */
    private static final class KeyRecorder implements ChangeVisitor {
        final List<Long> ids = new ArrayList<>();
        final List<SequenceInfo> sequences = new ArrayList<>();

        @Override
        public void begin(Action action, int columnCount, SequenceInfo sequence, String channelId) {
            sequences.add(sequence);
        }

        @Override
        public void primaryKey(int position, String name, Cell value) {
            ids.add(value.asInteger());
        }

        @Override
        public void column(
                int index, String name, ColumnOperation operation, Cell value, long timestamp) {}
    }

    private static FakeTunnelService logOf(long seed, int maxBatch, int size, boolean finished) {
        FakeTunnelService log = logOf(seed, maxBatch, size);
        return finished ? log.seal(CHANNEL) : log;
    }

    /** One stream channel of {@code size} records, answered in seeded random batches. */
    private static FakeTunnelService logOf(long seed, int maxBatch, int size) {
        return FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), CHANNEL)
                .randomBatches(seed, maxBatch)
                .appendRecords(CHANNEL, size);
    }
}
