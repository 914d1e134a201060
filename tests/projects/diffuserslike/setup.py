from setuptools import setup, find_packages
setup(name="minidiff", packages=find_packages("src"), package_dir={"": "src"})
