package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {

    @TempDir Path dir;

    @Test
    void barChartIsAReadablePng() throws Exception {
        Path file = dir.resolve("bars.png");

        Charts.bars(
                file,
                "ratios",
                "ratio",
                List.of(new Charts.Bar("a\n/ b", 0.4, 0), new Charts.Bar("c", 1.3, 1)),
                OptionalDouble.of(1));

        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getWidth()).isEqualTo(800);
        assertThat(image.getHeight()).isEqualTo(450);
    }

    @Test
    void lineChartDrawsSeriesWithZerosAndGaps() throws Exception {
        Path file = dir.resolve("lines.png");
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("ms", new double[] {200, 0, Double.NaN, 4000});

        Charts.lines(
                file,
                "cost",
                "ms",
                List.of("1", "16", "256", "1024"),
                series,
                OptionalDouble.of(500));

        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image).isNotNull();
        // Something other than the white background was drawn inside the plot area.
        assertThat(image.getRGB(80, 200)).isNotEqualTo(0xFFFFFFFF);
    }
}
