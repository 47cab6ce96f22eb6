package io.tablestorecdc.checkpoint.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ChannelBatchReaderTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tunnel-1", "client-1");
    private static final String CHANNEL = "channel-1";
    private static final Duration LONG = Duration.ofHours(1);
    private final AtomicLong nanos = new AtomicLong();

    @Test
    void consecutiveBatchesDeliverEveryRecordOnceWhateverTheBatching() {
        for (long seed = 0; seed < 50; seed++) {
            FakeTunnelService server = logOf(seed, 7, 200).seal(CHANNEL);
            List<ChangeRecord> seen = new ArrayList<>();
            ChannelCheckpoint at = adoptedAtStart();
            while (!at.isFinished()) {
                ChannelBatchReader reader = firstRead(server, at, 1 + (int) (seed % 13));
                seen.addAll(drain(reader));
                at = reader.endCheckpoint();
            }
            assertThat(seen).as("seed %d", seed).isEqualTo(server.channel(CHANNEL).records());
        }
    }

    @Test
    void replayDeliversExactlyTheFirstRunsRecordsEvenAfterMoreArrivedAndBatchingChanged() {
        for (long seed = 0; seed < 50; seed++) {
            FakeTunnelService firstServer = logOf(seed, 9, 40);
            ChannelCheckpoint start = firstBatchEnd(firstServer, 5);
            ChannelBatchReader first = firstRead(firstServer, start, 17);
            List<ChangeRecord> firstRun = drain(first);

            FakeTunnelService laterServer = logOf(seed + 1000, 4, 90);
            ChannelBatchReader replay = replay(laterServer, start, first.endCheckpoint());

            assertThat(drain(replay)).as("seed %d", seed).isEqualTo(firstRun);
            assertThat(replay.delivered()).isEqualTo(first.delivered());
        }
    }

    @Test
    void aBatchMayEndInsideAServerResponse() {
        FakeTunnelService server = logOf(1, 1000, 100);
        ChannelBatchReader reader = firstRead(server, adoptedAtStart(), 30);
        assertThat(drain(reader)).hasSize(30);

        ChannelBatchReader next = firstRead(server, reader.endCheckpoint(), 1000);
        List<ChangeRecord> rest = drain(next);

        assertThat(rest).isEqualTo(server.channel(CHANNEL).records().subList(30, 100));
    }

    @Test
    void endCheckpointRecordsCountSequenceAndLifecycle() {
        FakeTunnelService server = logOf(3, 10, 25);
        ChannelBatchReader reader = firstRead(server, adoptedAtStart(), 12);
        drain(reader);

        ChannelCheckpoint end = reader.endCheckpoint();

        assertThat(end.batchRecords()).isEqualTo(12);
        assertThat(end.lifecycle()).isEqualTo(ChannelLifecycle.READING);
        assertThat(end.lastSequence().timestampMicros()).isEqualTo(1_011_000L);
        assertThat(end.adoptedAt())
                .isEqualTo(ChannelPosition.at(FakeTunnelService.token(CHANNEL, 0)));
    }

    @Test
    void readingThroughTheFinishedTokenFinishesTheChannel() {
        FakeTunnelService server = logOf(4, 10, 15).seal(CHANNEL);
        ChannelBatchReader reader = firstRead(server, adoptedAtStart(), 1000);

        assertThat(drain(reader)).hasSize(15);
        assertThat(reader.position().isFinished()).isTrue();
        assertThat(reader.endCheckpoint().isFinished()).isTrue();
    }

    @Test
    void aFinishedChannelIsNeverReadAgain() {
        FakeTunnelService server = logOf(5, 10, 3);
        ChannelCheckpoint tombstone =
                ChannelCheckpoint.adopted(CHANNEL, ChannelType.STREAM, ChannelPosition.finished());

        assertThat(drain(firstRead(server, tombstone, 10))).isEmpty();
        assertThat(server.requests().reads()).isEmpty();
    }

    @Test
    void aFirstReadStopsWhenTheServerHasNothingMore() {
        FakeTunnelService server = logOf(6, 1000, 8);
        ChannelBatchReader reader = firstRead(server, adoptedAtStart(), 1000);

        assertThat(drain(reader)).hasSize(8);
        assertThat(reader.position())
                .isEqualTo(ChannelPosition.at(FakeTunnelService.token(CHANNEL, 8)));
    }

    @Test
    void aFirstReadStopsAfterItsTimeBudgetAndResumesWithoutLoss() {
        FakeTunnelService server = logOf(7, 5, 100);
        server.script().onRead(() -> nanos.addAndGet(Duration.ofMillis(40).toNanos()));
        ChannelReadLimit limit = new ChannelReadLimit(1000, Duration.ofMillis(100));

        ChannelBatchReader reader =
                ChannelBatchReader.firstRead(server, CLIENT, adoptedAtStart(), limit, nanos::get);
        List<ChangeRecord> firstPart = drain(reader);

        assertThat(server.requests().reads()).hasSize(3);
        List<ChangeRecord> all = new ArrayList<>(firstPart);
        all.addAll(drain(firstRead(server, reader.endCheckpoint(), 1000)));
        assertThat(all).isEqualTo(server.channel(CHANNEL).records());
    }

    @Test
    void aStartPositionBeyondWholeResponsesKeepsItsSkipWhenTheBudgetRunsOut() {
        FakeTunnelService server = logOf(8, 3, 50);
        server.script().onRead(() -> nanos.addAndGet(Duration.ofSeconds(1).toNanos()));
        ChannelCheckpoint start =
                ChannelCheckpoint.adopted(
                        CHANNEL,
                        ChannelType.STREAM,
                        ChannelPosition.at(FakeTunnelService.token(CHANNEL, 0), 40));
        ChannelReadLimit limit = new ChannelReadLimit(1000, Duration.ofMillis(1));

        ChannelBatchReader reader =
                ChannelBatchReader.firstRead(server, CLIENT, start, limit, nanos::get);
        List<ChangeRecord> read = drain(reader);
        List<ChangeRecord> rest = drain(firstRead(server, reader.endCheckpoint(), 1000));

        List<ChangeRecord> all = new ArrayList<>(read);
        all.addAll(rest);
        assertThat(all).isEqualTo(server.channel(CHANNEL).records().subList(40, 50));
    }

    @Test
    void aReplayThatCannotReachTheRecordedCountFailsInsteadOfLosingRecords() {
        FakeTunnelService server = logOf(9, 10, 30);
        ChannelBatchReader first = firstRead(server, adoptedAtStart(), 25);
        drain(first);
        server.truncate(CHANNEL, 10);
        server.seal(CHANNEL);

        ChannelBatchReader replay = replay(server, adoptedAtStart(), first.endCheckpoint());

        assertThatThrownBy(() -> drain(replay))
                .isInstanceOf(ReplayDivergedException.class)
                .hasMessageContaining("delivered 10 of the 25 records")
                .hasMessageContaining(CHANNEL);
    }

    @Test
    void aReplayOfAStalledChannelGivesUpAfterBoundedEmptyReads() {
        FakeTunnelService server = logOf(10, 10, 30);
        ChannelBatchReader first = firstRead(server, adoptedAtStart(), 25);
        drain(first);
        server.truncate(CHANNEL, 5);

        ChannelBatchReader replay = replay(server, adoptedAtStart(), first.endCheckpoint());

        assertThatThrownBy(() -> drain(replay))
                .isInstanceOf(ReplayDivergedException.class)
                .hasMessageContaining("no records");
    }

    @Test
    void aReadWhoseBudgetEndsBeforeItsFirstRequestStaysWhereItStarted() {
        FakeTunnelService server = logOf(2, 1000, 100);
        ChannelCheckpoint start = firstBatchEnd(server, 30); // inside the first response
        ChannelBatchReader reader =
                ChannelBatchReader.firstRead(
                        server,
                        CLIENT,
                        start,
                        new ChannelReadLimit(1000, Duration.ofMillis(5)),
                        nanos::get);
        nanos.addAndGet(Duration.ofMillis(10).toNanos()); // a pause before the task reads

        assertThat(drain(reader)).isEmpty();
        assertThat(reader.position()).isEqualTo(start.position());
        assertThat(drain(firstRead(server, reader.endCheckpoint(), 1000)))
                .as("the next batch misses nothing")
                .isEqualTo(server.channel(CHANNEL).records().subList(30, 100));
    }

    @Test
    void aReplayOfABatchThatReadNothingEndsWhereItsFirstRunEnded() {
        FakeTunnelService server = logOf(2, 1000, 100);
        ChannelCheckpoint start = firstBatchEnd(server, 30);
        ChannelCheckpoint nothingRead = start.advancedTo(start.position(), 0, start.lastSequence());

        ChannelBatchReader replay = replay(server, start, nothingRead);

        assertThat(drain(replay)).isEmpty();
        assertThat(replay.endCheckpoint().position()).isEqualTo(start.position());
    }

    private ChannelCheckpoint adoptedAtStart() {
        return ChannelCheckpoint.adopted(
                CHANNEL,
                ChannelType.STREAM,
                ChannelPosition.at(FakeTunnelService.token(CHANNEL, 0)));
    }

    private ChannelCheckpoint firstBatchEnd(FakeTunnelService server, int records) {
        ChannelBatchReader reader = firstRead(server, adoptedAtStart(), records);
        drain(reader);
        return reader.endCheckpoint();
    }

    private ChannelBatchReader firstRead(FakeTunnelService server, ChannelCheckpoint at, long max) {
        return ChannelBatchReader.firstRead(
                server, CLIENT, at, new ChannelReadLimit(max, LONG), nanos::get);
    }

    private static ChannelBatchReader replay(
            FakeTunnelService server, ChannelCheckpoint start, ChannelCheckpoint end) {
        return ChannelBatchReader.replay(
                server, CLIENT, start, end, ChannelBatchReader.IdleBackoff.NONE);
    }

    private static List<ChangeRecord> drain(ChannelBatchReader reader) {
        List<ChangeRecord> out = new ArrayList<>();
        for (Optional<ChangeRecord> r = reader.next(); r.isPresent(); r = reader.next()) {
            out.add(r.get());
        }
        return out;
    }

    /** One stream channel of {@code size} records, answered in seeded random batches. */
    private static FakeTunnelService logOf(long seed, int maxBatch, int size) {
        return FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), CHANNEL)
                .randomBatches(seed, maxBatch)
                .appendRecords(CHANNEL, size);
    }
}
