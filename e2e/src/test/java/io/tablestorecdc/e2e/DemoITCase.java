package io.tablestorecdc.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The README's demo, small: both engines, a split and a merge, and both replicas must match. */
class DemoITCase {

    @Test
    void bothReplicasMatchTheSourceAfterASplitAndAMerge() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);

        int status =
                Demo.run(
                        new String[] {
                            "--rows",
                            "200",
                            "--duration",
                            "10s",
                            "--rate",
                            "100",
                            "--catch-up-timeout",
                            "60s"
                        },
                        out);

        String output = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(status).as(output).isZero();
        assertThat(output)
                .contains("split the partition holding order-0000100 into")
                .contains("merged the two partitions around order-0000100")
                .containsPattern("spark +batch +\\d+ \\|")
                .containsPattern("flink +ckpt +\\d+ \\|")
                .containsPattern("spark +orders_spark_replica: MATCH")
                .containsPattern("flink +orders_flink_replica: MATCH")
                .contains("result MATCH")
                .contains("cli    Tunnel 'orders_to_spark' of table 'orders'")
                .contains("cli    Tunnel 'orders_to_flink' of table 'orders'")
                .containsPattern("cli +owner: +consumer '[^']+' \\(spark query\\).*\\(live\\)")
                .containsPattern("cli +owner: +consumer 'flink-job-[^']+' \\(flink job\\)")
                .containsPattern("cli +max lag: ")
                .doesNotContain("not reported caught up");
        // both tunnels' channels show no lag once the demo caught up (the consumers' reports)
        assertThat(output.lines().filter(l -> l.matches("cli +max lag: 0s"))).hasSize(2);
    }

    @Test
    void withSeveralTablesOneSourcePerEngineKeepsEveryReplicaMatching() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);

        int status =
                Demo.run(
                        new String[] {
                            "--tables",
                            "3",
                            "--table",
                            "shop",
                            "--rows",
                            "100",
                            "--duration",
                            "8s",
                            "--rate",
                            "90",
                            "--catch-up-timeout",
                            "60s"
                        },
                        out);

        String output = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(status).as(output).isZero();
        assertThat(output)
                .contains("table shop_3: wrote 100 orders (base data)")
                .contains("on 3 tables (table.pattern=shop_[0-9]+)")
                .contains("split the partition holding order-0000050 of shop_1 into")
                .containsPattern("spark +shop_1_spark_replica: MATCH")
                .containsPattern("spark +shop_3_spark_replica: MATCH")
                .containsPattern("flink +shop_2_flink_replica: MATCH")
                .containsPattern("flink +shop_3_flink_replica: MATCH")
                .contains("result MATCH")
                .contains("cli    Tunnel 'shop_to_flink' of table 'shop_3'");
        assertThat(output.lines().filter(l -> l.contains(": MATCH"))).hasSize(6);
    }
}
