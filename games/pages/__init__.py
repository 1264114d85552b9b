"""What each page shows: the pages' read models, the board drawing, and the page cache."""
