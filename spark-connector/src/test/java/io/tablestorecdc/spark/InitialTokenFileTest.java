package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.BatchToken;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InitialTokenFileTest {

    @TempDir Path dir;

    @Test
    void aWrittenTokenIsReadBack() throws Exception {
        InitialTokenFile file = new InitialTokenFile(dir.toString(), new Configuration());
        BatchToken token = BatchToken.random();

        assertThat(file.read()).isEmpty();
        file.write(token);

        assertThat(new InitialTokenFile(dir.toString(), new Configuration()).read())
                .contains(token);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")))
                    .containsExactly(InitialTokenFile.FILE_NAME);
        }
    }

    @Test
    void aTornWriteCountsAsNoToken() throws Exception {
        Files.writeString(dir.resolve(InitialTokenFile.FILE_NAME), "{\"token\":\"3f25");

        assertThat(new InitialTokenFile(dir.toString(), new Configuration()).read()).isEmpty();
    }
}
