package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProbeDecisionTest {

    private final AtomicLong nanos = new AtomicLong();
    private final IdleProbes idle = new IdleProbes(nanos::get);

    static ChannelCheckpoint readInLastBatch(String id, long records) {
        return ChannelCheckpoint.adopted(id, ChannelType.STREAM, ChannelPosition.at("t0"))
                .advancedTo(ChannelPosition.at("t1", 3), records, SequenceInfo.NONE);
    }

    static TablestoreOffset after(long batch, Map<String, Long> read) {
        return new TablestoreOffset(BatchToken.random(), batch, new TreeMap<>(read));
    }

    @Test
    void theFirstBatchOfAQueryReadsEveryChannelWithoutProbing() {
        ChannelCheckpoint seeded =
                ChannelCheckpoint.adopted("a", ChannelType.STREAM, ChannelPosition.at("t0"));

        assertThat(ProbeDecision.of(TablestoreOffset.initial(BatchToken.random()), seeded, idle))
                .isEqualTo(ProbeDecision.READ);
    }

    @Test
    void aChannelThatFilledItsCapStillHasABacklogAndIsNotProbed() {
        assertThat(ProbeDecision.of(after(3, Map.of("a", 100L)), readInLastBatch("a", 100), idle))
                .isEqualTo(ProbeDecision.READ);
    }

    @Test
    void aChannelLeftCaughtUpIsProbed() {
        assertThat(ProbeDecision.of(after(3, Map.of("a", 100L)), readInLastBatch("a", 99), idle))
                .isEqualTo(ProbeDecision.PROBE);
    }

    @Test
    void aChannelNotReadInTheLastBatchIsProbed() {
        assertThat(ProbeDecision.of(after(3, Map.of("b", 100L)), readInLastBatch("a", 0), idle))
                .isEqualTo(ProbeDecision.PROBE);
    }

    @Test
    void anIdleChannelWaitsForItsBackoffBeforeTheNextProbe() {
        TablestoreOffset start = after(3, Map.of("a", 100L));
        idle.record("a", true);

        assertThat(ProbeDecision.of(start, readInLastBatch("a", 0), idle))
                .isEqualTo(ProbeDecision.WAIT);
        nanos.addAndGet(IdleProbes.FIRST_WAIT.toNanos());
        assertThat(ProbeDecision.of(start, readInLastBatch("a", 0), idle))
                .isEqualTo(ProbeDecision.PROBE);
    }

    @Test
    void aFullChannelIsReadEvenWhileItsOldBackoffRuns() {
        idle.record("a", true);

        assertThat(ProbeDecision.of(after(3, Map.of("a", 5L)), readInLastBatch("a", 5), idle))
                .isEqualTo(ProbeDecision.READ);
    }
}
