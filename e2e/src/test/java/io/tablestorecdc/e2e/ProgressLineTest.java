package io.tablestorecdc.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProgressLineTest {

    @Test
    void showsABarWhileTheBaseDataIsBeingCaughtUp() {
        ProgressLine line =
                new ProgressLine(
                        "batch",
                        3,
                        500,
                        1500,
                        Optional.of(new ProgressLine.Channels(1, 1, 0)),
                        Optional.of(1234L),
                        1500,
                        2000);

        assertThat(line.format())
                .isEqualTo(
                        "batch    3 |    500 rows | total    1500 | channels  1 open  1 waiting "
                                + " 0 finished | lag   1.2 s | base [###############.....] 75%");
    }

    @Test
    void saysWhenTheBaseDataIsDoneAndWhatIsUnknown() {
        ProgressLine line =
                new ProgressLine(
                        "ckpt", 7, 10, 2010, Optional.empty(), Optional.empty(), 2000, 2000);

        assertThat(line.format())
                .contains("channels  -")
                .contains("lag       -")
                .endsWith("base data done");
    }
}
