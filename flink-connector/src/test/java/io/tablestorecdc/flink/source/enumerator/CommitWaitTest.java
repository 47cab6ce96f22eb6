package io.tablestorecdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A job whose finishes wait for a checkpoint that never begins is told once what to set. */
class CommitWaitTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private long nanos;
    private final CommitWait wait = new CommitWait(PATIENCE, () -> nanos);

    @Test
    void finishesWaitingAMinuteWithoutAnyCheckpointNameTheSettingOnce() {
        assertThat(wait.observe(1, "orders-cdc")).isEmpty();
        advance(Duration.ofSeconds(59));
        assertThat(wait.observe(2, "orders-cdc")).as("not yet a minute").isEmpty();
        advance(Duration.ofSeconds(1));

        Optional<String> told = wait.observe(2, "orders-cdc");

        assertThat(told)
                .hasValueSatisfying(
                        text ->
                                assertThat(text)
                                        .startsWith(
                                                "2 finished channel(s) of tunnel 'orders-cdc' have"
                                                        + " waited 60 s for a checkpoint")
                                        .contains("checkpointing is probably disabled")
                                        .contains("env.enableCheckpointing(10_000)")
                                        .contains("execution.checkpointing.interval: 10s")
                                        .contains(
                                                "SET 'execution.checkpointing.interval' = '10s';"));
        advance(Duration.ofMinutes(5));
        assertThat(wait.observe(2, "orders-cdc")).as("said once").isEmpty();
    }

    @Test
    void theWaitStartsAgainWhenNoFinishWaitsInBetween() {
        wait.observe(1, "t");
        advance(Duration.ofSeconds(50));
        wait.observe(0, "t");
        wait.observe(1, "t");
        advance(Duration.ofSeconds(50));

        assertThat(wait.observe(1, "t")).as("50 s since the last finish began to wait").isEmpty();
        advance(Duration.ofSeconds(10));
        assertThat(wait.observe(1, "t")).isPresent();
    }

    @Test
    void aJobWhoseCheckpointsBeginIsNotTold() {
        wait.observe(1, "t");
        wait.checkpointBegun();
        advance(Duration.ofMinutes(10));

        assertThat(wait.observe(1, "t"))
                .as("a long interval or failing checkpoints are Flink's to report")
                .isEmpty();
    }

    private void advance(Duration by) {
        nanos += by.toNanos();
    }
}
