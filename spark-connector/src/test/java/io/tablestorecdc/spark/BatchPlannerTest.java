package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.junit.jupiter.api.Test;

class BatchPlannerTest {

    static ChannelBacklog backlog(String id, long records) {
        return new ChannelBacklog(
                ChannelCheckpoint.adopted(id, ChannelType.STREAM, ChannelPosition.at("t")),
                records);
    }

    static List<ChannelBacklog> large(String... ids) {
        List<ChannelBacklog> out = new ArrayList<>();
        for (String id : ids) {
            out.add(backlog(id, ChannelBacklog.LARGE));
        }
        return out;
    }

    @Test
    void allAvailableCapsEachChannelAtItsOwnLimit() {
        assertThat(BatchPlanner.caps(large("a", "b"), ReadLimit.allAvailable(), 1000))
                .containsEntry("a", 1000L)
                .containsEntry("b", 1000L);
    }

    @Test
    void maxRowsIsSplitEvenlyAcrossEquallyBusyChannelsWithoutExceedingTheTotal() {
        assertThat(BatchPlanner.caps(large("a", "b", "c"), ReadLimit.maxRows(10), 1000))
                .containsEntry("a", 4L)
                .containsEntry("b", 3L)
                .containsEntry("c", 3L);
    }

    @Test
    void theChannelsOfSeveralTablesShareTheMaximumByPositionEvenWithTheSameIds() {
        // Two tables whose channels are both named p-0 and p-1: caps follow the list's order.
        List<ChannelBacklog> channels =
                List.of(
                        backlog("p-0", ChannelBacklog.LARGE),
                        backlog("p-1", 10),
                        backlog("p-0", 10),
                        backlog("p-1", ChannelBacklog.LARGE));

        List<Long> caps = BatchPlanner.capsInOrder(channels, ReadLimit.maxRows(220), 1000);

        assertThat(caps).containsExactly(106L, 5L, 4L, 105L);
        assertThat(caps.stream().mapToLong(Long::longValue).sum()).isEqualTo(220);
    }

    @Test
    void maxRowsFollowsTheBacklog() {
        List<ChannelBacklog> channels =
                List.of(backlog("a", ChannelBacklog.LARGE), backlog("b", 10));

        assertThat(BatchPlanner.caps(channels, ReadLimit.maxRows(100), 1000))
                .containsEntry("a", 91L)
                .containsEntry("b", 9L);
    }

    @Test
    void perChannelLimitStillApplies() {
        assertThat(BatchPlanner.caps(large("a", "b"), ReadLimit.maxRows(1000), 50))
                .containsEntry("a", 50L)
                .containsEntry("b", 50L);
    }

    @Test
    void everyChannelReadsAtLeastOneRecord() {
        assertThat(BatchPlanner.caps(large("a", "b", "c"), ReadLimit.maxRows(1), 50).values())
                .containsOnly(1L);
    }

    @Test
    void aProbeShowsWhatIsLeftAfterTheConsumedRecords() {
        List<ChangeRecord> three = Collections.nCopies(3, record());

        assertThat(ChannelBacklog.estimate(read(three, false, false), 1)).isEqualTo(2);
        assertThat(ChannelBacklog.estimate(read(three, true, false), 1))
                .isEqualTo(ChannelBacklog.LARGE);
        assertThat(ChannelBacklog.estimate(read(three, false, false), 3)).isZero();
        assertThat(ChannelBacklog.estimate(read(List.of(), false, true), 0)).isEqualTo(1);
    }

    static ReadResult read(List<ChangeRecord> records, boolean mayMore, boolean finished) {
        return new ReadResult(
                records,
                finished ? ChannelPosition.finished() : ChannelPosition.at("next"),
                mayMore);
    }

    static ChangeRecord record() {
        return new ChangeRecord(
                ChangeRecord.Action.PUT,
                List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofString("k"))),
                List.of(),
                SequenceInfo.NONE,
                "p-0");
    }
}
