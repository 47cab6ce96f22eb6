package io.tablestorecdc.e2e.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import javax.imageio.ImageIO;

/**
 * PNG charts of the results, drawn with Java2D (headless; no chart library): bar charts of ratios
 * and percentiles, line charts (log scale) of a cost against the channel count.
 */
final class Charts {

    private static final int WIDTH = 800;
    private static final int HEIGHT = 450;
    private static final int LEFT = 80;
    private static final int RIGHT = 30;
    private static final int TOP = 50;
    private static final int BOTTOM = 90;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4),
        new Color(0xff7f0e),
        new Color(0x2ca02c),
        new Color(0xd62728),
        new Color(0x9467bd),
        new Color(0x8c564b)
    };

    /** One bar: its label under the axis, its value, its colour group. */
    record Bar(String label, double value, int group) {}

    private Charts() {}

    static {
        System.setProperty("java.awt.headless", "true");
    }

    /** Vertical bars with their values written on top; an optional dashed reference line. */
    static void bars(Path file, String title, String unit, List<Bar> bars, OptionalDouble line)
            throws IOException {
        double max = bars.stream().mapToDouble(Bar::value).max().orElse(1);
        max = niceMax(Math.max(max, line.orElse(0)));
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = canvas(image, title);
        axes(g, max, unit);
        int plotW = WIDTH - LEFT - RIGHT;
        int slot = plotW / Math.max(1, bars.size());
        for (int i = 0; i < bars.size(); i++) {
            Bar bar = bars.get(i);
            int h = (int) (bar.value() / max * plotHeight());
            int x = LEFT + i * slot + slot / 6;
            g.setColor(PALETTE[bar.group() % PALETTE.length]);
            g.fillRect(x, TOP + plotHeight() - h, slot * 2 / 3, h);
            g.setColor(Color.BLACK);
            centered(g, number(bar.value()), x + slot / 3, TOP + plotHeight() - h - 5);
            label(g, bar.label(), x + slot / 3, TOP + plotHeight() + 18);
        }
        if (line.isPresent()) {
            dashed(g, TOP + plotHeight() - (int) (line.getAsDouble() / max * plotHeight()));
        }
        write(image, g, file);
    }

    /**
     * Lines over categorical x values (channel counts), one per series, on a logarithmic y axis (so
     * linear growth has a constant slope and small values stay visible); values below 0.1 are drawn
     * at 0.1, NaN leaves a gap.
     */
    static void lines(
            Path file,
            String title,
            String unit,
            List<String> xLabels,
            Map<String, double[]> series,
            OptionalDouble line)
            throws IOException {
        double max = line.orElse(1);
        double min = line.orElse(Double.MAX_VALUE);
        for (double[] values : series.values()) {
            for (double v : values) {
                max = Double.isNaN(v) ? max : Math.max(max, v);
                min = Double.isNaN(v) || v <= 0 ? min : Math.min(min, v);
            }
        }
        int high = Math.max(1, (int) Math.ceil(Math.log10(max)));
        int low = Math.min(high - 1, Math.max(-1, (int) Math.floor(Math.log10(min))));
        LogAxis axis = new LogAxis(low, high);
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = canvas(image, title);
        axis.draw(g, unit);
        int step = (WIDTH - LEFT - RIGHT) / Math.max(1, xLabels.size());
        for (int i = 0; i < xLabels.size(); i++) {
            label(g, xLabels.get(i), LEFT + step / 2 + i * step, TOP + plotHeight() + 18);
        }
        int s = 0;
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            Color color = PALETTE[s % PALETTE.length];
            plot(g, color, e.getValue(), step, axis, s % 2 == 0 ? -6 : 16);
            legend(g, color, e.getKey(), s++);
        }
        if (line.isPresent()) {
            dashed(g, axis.y(line.getAsDouble()));
        }
        write(image, g, file);
    }

    /** One series; its values written {@code labelDy} px from the points (alternating sides). */
    private static void plot(
            Graphics2D g, Color color, double[] values, int step, LogAxis axis, int labelDy) {
        g.setColor(color);
        g.setStroke(new BasicStroke(2.5f));
        int[] prev = null;
        for (int i = 0; i < values.length; i++) {
            if (Double.isNaN(values[i])) {
                prev = null;
                continue;
            }
            int[] p = {LEFT + step / 2 + i * step, axis.y(values[i])};
            g.fillOval(p[0] - 4, p[1] - 4, 8, 8);
            g.drawString(number(values[i]), p[0] + 6, p[1] + labelDy);
            if (prev != null) {
                g.drawLine(prev[0], prev[1], p[0], p[1]);
            }
            prev = p;
        }
        g.setStroke(new BasicStroke(1));
    }

    /** Two legend entries a row under the plot. */
    private static void legend(Graphics2D g, Color color, String text, int index) {
        int x = LEFT + (index % 2) * 340;
        int y = HEIGHT - 42 + (index / 2) * 18;
        g.setColor(color);
        g.fillRect(x, y - 11, 14, 14);
        g.setColor(Color.BLACK);
        g.drawString(text, x + 20, y);
    }

    /** A base-10 logarithmic y axis from 10^low to 10^high. */
    private record LogAxis(int low, int high) {
        int y(double value) {
            double v = Math.log10(Math.max(value, Math.pow(10, low)));
            return TOP + plotHeight() - (int) ((v - low) / (high - low) * plotHeight());
        }

        void draw(Graphics2D g, String unit) {
            for (int p = low; p <= high; p++) {
                int y = y(Math.pow(10, p));
                g.setColor(Color.LIGHT_GRAY);
                g.drawLine(LEFT, y, WIDTH - RIGHT, y);
                g.setColor(Color.DARK_GRAY);
                String tick = number(Math.pow(10, p));
                g.drawString(tick, LEFT - 8 - g.getFontMetrics().stringWidth(tick), y + 4);
            }
            g.setColor(Color.BLACK);
            g.drawLine(LEFT, TOP, LEFT, TOP + plotHeight());
            g.drawLine(LEFT, TOP + plotHeight(), WIDTH - RIGHT, TOP + plotHeight());
            g.drawString(unit + " (log scale)", 8, TOP - 10);
        }
    }

    private static int plotHeight() {
        return HEIGHT - TOP - BOTTOM;
    }

    private static Graphics2D canvas(BufferedImage image, String title) {
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(
                RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, LEFT, 28);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        return g;
    }

    private static void axes(Graphics2D g, double max, String unit) {
        g.setColor(Color.LIGHT_GRAY);
        for (int i = 0; i <= 5; i++) {
            int y = TOP + plotHeight() - i * plotHeight() / 5;
            g.drawLine(LEFT, y, WIDTH - RIGHT, y);
            g.setColor(Color.DARK_GRAY);
            String tick = number(max * i / 5);
            g.drawString(tick, LEFT - 8 - g.getFontMetrics().stringWidth(tick), y + 4);
            g.setColor(Color.LIGHT_GRAY);
        }
        g.setColor(Color.BLACK);
        g.drawLine(LEFT, TOP, LEFT, TOP + plotHeight());
        g.drawLine(LEFT, TOP + plotHeight(), WIDTH - RIGHT, TOP + plotHeight());
        g.drawString(unit, 8, TOP - 10);
    }

    private static void dashed(Graphics2D g, int y) {
        g.setColor(Color.RED);
        g.setStroke(
                new BasicStroke(
                        1.5f,
                        BasicStroke.CAP_BUTT,
                        BasicStroke.JOIN_MITER,
                        10,
                        new float[] {6, 6},
                        0));
        g.drawLine(LEFT, y, WIDTH - RIGHT, y);
        g.setStroke(new BasicStroke(1));
    }

    /** A label centred under x; a second line after a newline. */
    private static void label(Graphics2D g, String text, int x, int y) {
        g.setColor(Color.BLACK);
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            centered(g, lines[i], x, y + i * 15);
        }
    }

    private static void centered(Graphics2D g, String text, int x, int y) {
        g.drawString(text, x - g.getFontMetrics().stringWidth(text) / 2, y);
    }

    private static String number(double v) {
        if (v == Math.rint(v) || Math.abs(v) >= 10) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 1 ? "%.1f" : "%.2f", v);
    }

    /** The axis top: 1, 2, 2.5 or 5 times a power of ten, at least {@code max}. */
    private static double niceMax(double max) {
        if (max <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(max)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * power >= max) {
                return m * power;
            }
        }
        return 10 * power;
    }

    private static void write(BufferedImage image, Graphics2D g, Path file) throws IOException {
        g.dispose();
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(image, "png", file.toFile());
    }
}
