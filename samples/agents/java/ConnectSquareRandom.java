// Connect Square sample agent: drops a coin in a random playable column.
// Run with no arguments in a directory holding input.txt (docs/games/connectsquare.md and docs/protocol.md);
// writes the column to output.txt. Build with `javac -d build ConnectSquareRandom.java`,
// then the referee runs it as `--agent "name=java,cmd=java -cp . ConnectSquareRandom,dir=build"`
// (the `.` of `-cp .` is the agent's home, not the game directory it runs in).
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class ConnectSquareRandom {
    public static void main(String[] args) throws Exception {
        List<String> lines = new ArrayList<>();
        for (String l : Files.readAllLines(Path.of("input.txt"))) {
            if (!l.isBlank()) lines.add(l.strip());
        }
        int cols = Integer.parseInt(lines.get(4).split("\\s+")[1]);
        String top = lines.get(5);
        List<Integer> playable = new ArrayList<>();
        for (int c = 0; c < cols; c++) {
            if (top.charAt(c) == '.' || top.charAt(c) == '0') playable.add(c);
        }
        int col = playable.get(new Random().nextInt(playable.size()));
        Files.writeString(Path.of("output.txt"), col + "\n");
    }
}
