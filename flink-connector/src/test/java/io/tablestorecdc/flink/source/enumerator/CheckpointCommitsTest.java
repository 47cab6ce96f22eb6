package io.tablestorecdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What a checkpoint's meta write carries: adoption records once per channel (a write costs the
 * channels that moved, not every channel the job adopted), again only after a failed write.
 */
class CheckpointCommitsTest {

    private static final String TUNNEL = "tunnel-1";

    @Test
    void adoptionsAreSentUntilAWriteRecordsThemAndNeverAfter() {
        CheckpointCommits commits = new CheckpointCommits();
        commits.committed(positions(1024, 0));

        CheckpointCommits.MetaWrite first = commits.metaWrite(TUNNEL).orElseThrow();
        assertThat(first.adoptions()).hasSize(1024);
        assertThat(first.snapshot().channels()).hasSize(1024);
        commits.metaWritten(first);

        commits.committed(List.of(split("ch-0003", 1), split("ch-0500", 1)));
        CheckpointCommits.MetaWrite second = commits.metaWrite(TUNNEL).orElseThrow();
        assertThat(second.adoptions()).as("recorded by the first write").isEmpty();
        assertThat(second.snapshot().channels()).as("still every channel").hasSize(1024);
        commits.metaWritten(second);

        commits.committed(List.of(split("ch-new", 0)));
        CheckpointCommits.MetaWrite third = commits.metaWrite(TUNNEL).orElseThrow();
        assertThat(third.adoptions())
                .extracting(ChannelCheckpoint::channelId)
                .containsExactly("ch-new");
    }

    @Test
    void aFailedWriteLeavesItsAdoptionsToTheNextWrite() {
        CheckpointCommits commits = new CheckpointCommits();
        commits.committed(positions(3, 0));
        CheckpointCommits.MetaWrite failed = commits.metaWrite(TUNNEL).orElseThrow();
        assertThat(failed.adoptions()).hasSize(3);

        commits.committed(positions(3, 1));
        CheckpointCommits.MetaWrite next = commits.metaWrite(TUNNEL).orElseThrow();
        assertThat(next.adoptions()).hasSize(3);
        commits.metaWritten(next);

        commits.committed(positions(3, 2));
        assertThat(commits.metaWrite(TUNNEL).orElseThrow().adoptions()).isEmpty();
    }

    @Test
    void aCheckpointThatMovedNothingWritesNothing() {
        CheckpointCommits commits = new CheckpointCommits();
        commits.committed(positions(4, 0));
        commits.metaWritten(commits.metaWrite(TUNNEL).orElseThrow());

        commits.committed(positions(4, 0)); // an idle stream: every reader at the same position
        assertThat(commits.metaWrite(TUNNEL)).as("an idle stream adds no meta rows").isEmpty();
        commits.committed(List.of());
        assertThat(commits.metaWrite(TUNNEL)).isEmpty();

        commits.committed(List.of(split("ch-0002", 1)));
        assertThat(commits.metaWrite(TUNNEL)).as("one channel moved").isPresent();
    }

    private static List<ChannelSplit> positions(int channels, int step) {
        List<ChannelSplit> splits = new ArrayList<>();
        IntStream.range(0, channels)
                .forEach(i -> splits.add(split(String.format("ch-%04d", i), step)));
        return splits;
    }

    private static ChannelSplit split(String id, int step) {
        return new ChannelSplit(id, ChannelType.STREAM, ChannelPosition.at(id + "@" + step));
    }
}
