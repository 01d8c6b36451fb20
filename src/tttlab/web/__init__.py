"""The web page: a FastAPI app serving one static page and a JSON API."""
