package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The change log format and the audit's rules, on hand-made deliveries. */
class DeliveryAuditTest {

    private static final DeliveredChange BASE_A = change("a", "PUT", "BaseData_p-0", 0);
    private static final DeliveredChange A1 = change("a", "UPDATE", "p-0", 10);
    private static final DeliveredChange B1 = change("b", "PUT", "p-0", 11);
    private static final DeliveredChange A2 = change("a", "DELETE", "p-1", 12);

    private static final Map<String, String> EXPECTED =
            Map.of("base:a", "PUT", "a@10", "UPDATE", "b@11", "PUT", "a@12", "DELETE");

    @Test
    void sparkAcceptsTheLatestBatchRunAgainWithTheSameRecordsAfterATornOne() {
        DeliveryAudit.Report report =
                DeliveryAudit.spark(
                        List.of(
                                batch(0, 0, true, BASE_A),
                                batch(0, 1, false, A1),
                                batch(1, 1, true, A1, B1),
                                batch(1, 2, true, A2),
                                batch(2, 2, true, A2)),
                        EXPECTED);

        assertThat(report.violations()).isEmpty();
        assertThat(report.committed()).containsExactly(BASE_A, A1, B1, A2);
        assertThat(report.redelivered()).isEqualTo(2);
    }

    @Test
    void sparkReportsABatchRunAgainWithOtherRecords() {
        DeliveryAudit.Report report =
                DeliveryAudit.spark(
                        List.of(
                                batch(0, 0, true, BASE_A, A1),
                                batch(1, 0, true, BASE_A),
                                batch(1, 1, true, A1, B1, A2)),
                        EXPECTED);

        assertThat(report.violations())
                .anyMatch(v -> v.startsWith("batch 0 was delivered again with other records"))
                .anyMatch(v -> v.contains("changes in more than one committed unit"));
    }

    @Test
    void sparkReportsASkippedBatchAndAMissingChange() {
        DeliveryAudit.Report report =
                DeliveryAudit.spark(
                        List.of(batch(0, 0, true, BASE_A, A1), batch(1, 2, true, A2)), EXPECTED);

        assertThat(report.violations())
                .anyMatch(v -> v.contains("started at batch 2 but the latest batch before was 0"))
                .anyMatch(v -> v.equals("batch 1 was never delivered completely"))
                .anyMatch(
                        v -> v.startsWith("1 changes the source wrote that were never delivered"));
    }

    @Test
    void sparkReportsATornDeliveryThatIsNotAPrefix() {
        DeliveryAudit.Report report =
                DeliveryAudit.spark(
                        List.of(batch(0, 0, false, B1), batch(1, 0, true, BASE_A, A1, B1, A2)),
                        EXPECTED);

        assertThat(report.violations()).anyMatch(v -> v.contains("is not a prefix of"));
    }

    @Test
    void reportsAKeyOutOfCommitOrderAndAWrongOperation() {
        DeliveredChange wrongOp = change("b", "UPDATE", "p-0", 11);
        DeliveryAudit.Report report =
                DeliveryAudit.spark(List.of(batch(0, 0, true, A1, BASE_A, wrongOp, A2)), EXPECTED);

        assertThat(report.violations())
                .anyMatch(v -> v.contains("changes of a key out of commit order"))
                .anyMatch(v -> v.contains("b@11 is PUT in the source but came as UPDATE"));
    }

    @Test
    void flinkCountsEachRunUpToTheCheckpointTheNextRunRestoredFrom() {
        List<Delivery> deliveries =
                List.of(
                        checkpoint(0, 0, 1, true, BASE_A),
                        checkpoint(0, 1, 2, true, A1),
                        checkpoint(0, 0, 3, false, B1), // after the restored checkpoint 2
                        checkpoint(1, 0, 3, true, B1),
                        checkpoint(1, 1, 4, true, A2));
        DeliveryAudit.Report report =
                DeliveryAudit.flink(
                        deliveries,
                        Map.of(0, OptionalLong.of(2), 1, OptionalLong.of(Long.MAX_VALUE)),
                        EXPECTED);

        assertThat(report.violations()).isEmpty();
        assertThat(report.redelivered()).isEqualTo(1);
    }

    @Test
    void flinkReportsAChangeLostWithAnUncommittedCheckpointAndATornCommittedOne() {
        List<Delivery> deliveries =
                List.of(
                        checkpoint(0, 0, 1, false, BASE_A, A1),
                        checkpoint(0, 1, 2, true, B1),
                        checkpoint(1, 0, 2, true, A2));
        DeliveryAudit.Report report =
                DeliveryAudit.flink(
                        deliveries,
                        Map.of(0, OptionalLong.of(1), 1, OptionalLong.of(Long.MAX_VALUE)),
                        EXPECTED);

        assertThat(report.violations())
                .anyMatch(v -> v.contains("is torn"))
                .anyMatch(
                        v -> v.startsWith("1 changes the source wrote that were never delivered"));
    }

    @Test
    void theChangeLogReadsBackCompleteBlocksAndATornTail(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("run.changes");
        ChangeLog.append(log, 0, List.of(BASE_A));
        ChangeLog.append(log, 1, List.of(A1, B1));
        String whole = Files.readString(log, StandardCharsets.UTF_8);
        // A SIGKILL in the middle of the third block's second record.
        ChangeLog.append(log, 2, List.of(A2, B1));
        String torn = Files.readString(log, StandardCharsets.UTF_8);
        Files.writeString(log, torn.substring(0, torn.lastIndexOf("C\t") + 5));

        List<Delivery> read = ChangeLog.read(log, 3, 1);

        assertThat(read)
                .containsExactly(
                        new Delivery(3, 1, 0, List.of(BASE_A), true),
                        new Delivery(3, 1, 1, List.of(A1, B1), true),
                        new Delivery(3, 1, 2, List.of(A2), false));
        assertThat(whole).startsWith("B\t0\t1\nC\ta\tPUT\tBaseData_p-0\t");
    }

    private static DeliveredChange change(String key, String op, String channel, long micros) {
        int epoch = channel.equals("p-1") ? 1 : 0;
        return new DeliveredChange(key, op, channel, epoch, micros, (int) micros, "status=NEW");
    }

    private static Delivery batch(int run, long id, boolean complete, DeliveredChange... changes) {
        return new Delivery(run, 0, id, List.of(changes), complete);
    }

    private static Delivery checkpoint(
            int run, int subtask, long id, boolean complete, DeliveredChange... changes) {
        return new Delivery(run, subtask, id, List.of(changes), complete);
    }
}
