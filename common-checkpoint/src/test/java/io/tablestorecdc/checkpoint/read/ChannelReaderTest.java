package io.tablestorecdc.checkpoint.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChannelReaderTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tunnel-1", "client-1");
    private static final String CHANNEL = "c";

    @Test
    void aTakenResponseGivesEachRecordThePositionAfterItAndMovesToItsEnd() {
        FakeTunnelService server = log(5).seal(CHANNEL).batchSize(2);
        ChannelReader reader = reader(server, ChannelPosition.at("c@0"));

        List<ChannelPosition> after = new ArrayList<>();
        while (!reader.isFinished()) {
            ChannelResponse response = reader.takeResponse();
            for (int i = response.first(); i < response.end(); i++) {
                after.add(response.positionAfter(i));
            }
            assertThat(reader.position()).isEqualTo(response.positionBefore(response.end()));
        }

        assertThat(after)
                .containsExactly(
                        ChannelPosition.at("c@0", 1),
                        ChannelPosition.at("c@2"),
                        ChannelPosition.at("c@2", 1),
                        ChannelPosition.at("c@4"),
                        ChannelPosition.finished());
    }

    @Test
    void resumingAnywhereTakesEveryRecordOnceHoweverTheServerBatches() {
        for (long seed = 0; seed < 50; seed++) {
            Random random = new Random(seed);
            FakeTunnelService server = log(60).seal(CHANNEL);
            List<ChangeRecord> seen = new ArrayList<>();
            ChannelPosition at = ChannelPosition.at("c@0");
            while (!at.isFinished()) {
                // Each run reads under another batching and stops after a random number of records.
                server.randomBatches(random.nextLong(), 1 + random.nextInt(9));
                ChannelReader reader = reader(server, at);
                int take = 1 + random.nextInt(12);
                while (take > 0 && !reader.isFinished()) {
                    ChannelResponse response = reader.readResponse();
                    while (take > 0 && reader.advance()) {
                        seen.add(reader.current());
                        take--;
                    }
                    assertThat(response.channelId()).isEqualTo(CHANNEL);
                }
                at = reader.position();
            }
            assertThat(seen).as("seed %d", seed).isEqualTo(server.channel(CHANNEL).records());
        }
    }

    @Test
    void aStopPositionStopsTheChannelRightBeforeItsFirstRecordCommittedAfterIt() {
        // Record i of the fake is committed at 1000 + i ms: records 0..2 are at or before 1002.
        FakeTunnelService server = log(6).batchSize(2);
        ChannelReader reader =
                reader(server, ChannelPosition.at("c@0"))
                        .stoppingAfter(Optional.of(Instant.ofEpochMilli(1002)));

        List<ChangeRecord> taken = new ArrayList<>();
        while (!reader.isStopped()) {
            reader.readResponse();
            while (reader.advance()) {
                taken.add(reader.current());
            }
        }

        assertThat(taken).isEqualTo(server.channel(CHANNEL).records().subList(0, 3));
        assertThat(reader.position()).isEqualTo(ChannelPosition.at("c@2", 1));
        assertThat(reader.isFinished()).isFalse();
        assertThatThrownBy(reader::readResponse)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nothing more to read");
    }

    @Test
    void recordsWithoutACommitTimeNeverStopTheChannel() {
        FakeTunnelService server = FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), CHANNEL);
        for (long key = 0; key < 3; key++) {
            server.append(CHANNEL, baseRow(key));
        }
        server.seal(CHANNEL).batchSize(2);
        ChannelReader reader =
                reader(server, ChannelPosition.at("c@0"))
                        .stoppingAfter(Optional.of(Instant.ofEpochMilli(1)));

        int taken = 0;
        while (!reader.isFinished()) {
            ChannelResponse response = reader.takeResponse();
            taken += response.end() - response.first();
            assertThat(reader.isStopped()).isFalse();
        }

        assertThat(taken).isEqualTo(3);
    }

    @Test
    void aResponseReadFromInsideAnEarlierOneHoldsOnlyTheRecordsNotTakenBefore() {
        FakeTunnelService server = log(5).batchSize(4);
        ChannelReader reader = reader(server, ChannelPosition.at("c@0", 3));

        ChannelResponse response = reader.readResponse();

        assertThat(response.first()).isEqualTo(3);
        assertThat(response.end()).isEqualTo(4);
        assertThat(reader.advance()).isTrue();
        assertThat(reader.current()).isEqualTo(server.channel(CHANNEL).records().get(3));
        assertThat(reader.advance()).isFalse();
        assertThat(reader.position()).isEqualTo(ChannelPosition.at("c@4"));
    }

    @Test
    void thereIsNoCurrentRecordBeforeTheFirstAdvanceOfAResponse() {
        ChannelReader reader = reader(log(3).batchSize(2), ChannelPosition.at("c@0"));
        reader.readResponse();

        assertThatThrownBy(reader::current)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("call advance() first");
    }

    private static ChannelReader reader(FakeTunnelService server, ChannelPosition start) {
        return ChannelReader.from(TunnelPages.direct(server), CLIENT, CHANNEL, start);
    }

    private static FakeTunnelService log(int size) {
        return FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), CHANNEL)
                .appendRecords(CHANNEL, size);
    }

    private static ChangeRecord baseRow(long key) {
        return new ChangeRecord(
                ChangeRecord.Action.PUT,
                List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(key))),
                List.of(),
                SequenceInfo.NONE,
                CHANNEL);
    }
}
